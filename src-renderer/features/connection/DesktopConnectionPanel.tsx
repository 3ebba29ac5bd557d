import { Alert, Badge, Button, Code, Group, NumberInput, Paper, PasswordInput, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import type { DesktopInput, DesktopOperationName } from '../../../src-main/desktop-contract';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useDesktopControls, type DesktopControls, type DesktopState } from '../../api/desktop-controls';
import { fieldError } from '../../ui/field-error';
import { ErrorState, LoadingState } from '../../ui/StateViews';

/** The desktop app's part of the Connection screen: the local service and saved connections. */
export function DesktopConnectionPanel() {
  const controls = useDesktopControls();
  return controls ? <Panel controls={controls} /> : null;
}

function Panel({ controls }: { controls: DesktopControls }) {
  const [state, setState] = useState<DesktopState>();
  const [error, setError] = useState<AdminError>();
  const [pending, setPending] = useState<string>();

  const run = useCallback(
    async <N extends DesktopOperationName>(name: N, input: DesktopInput<N>): Promise<boolean> => {
      setPending(name);
      setError(undefined);
      try {
        setState(await controls.call(name, input));
        return true;
      } catch (caught) {
        setError(toAdminError(caught));
        return false;
      } finally {
        setPending(undefined);
      }
    },
    [controls],
  );
  useEffect(() => {
    void run('desktop.state', {});
  }, [run]);

  if (!state) return error ? <ErrorState title="The desktop app did not answer" error={error} onRetry={() => void run('desktop.state', {})} /> : <LoadingState label="Loading connections…" />;
  const { local } = state;
  const running = local.status.state === 'running' || local.status.state === 'starting';

  return (
    <Stack>
      {error && <Alert color="red" title="That did not work">{error.message}</Alert>}
      <Paper withBorder p="md">
        <Group justify="space-between" mb="sm">
          <Title order={4}>Local service</Title>
          <Badge color={local.status.state === 'running' ? 'teal' : local.status.state === 'failed' ? 'red' : 'gray'} variant="dot">
            {local.status.state}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed">
          Runs beside this window on {local.applied ? `${local.applied.host}:${local.applied.port}` : 'nothing (stopped)'} · data in {local.dataDir}
        </Text>
        {local.status.message && <Text size="sm" c="red">{local.status.message}</Text>}
        {local.status.state === 'failed' && local.status.message?.includes('npm run repair') && (
          <Alert color="orange" mt="sm" title="The journal of the local data is damaged" data-testid="repair-offer">
            Records after the damage are whole and were not cut. Repairing keeps a copy of every file it changes, skips only the damaged
            record(s) and says what they held; then the service starts.{' '}
            <Button size="compact-sm" variant="light" color="orange" onClick={() => void run('local.repair', {})} loading={pending === 'local.repair'}>
              Repair the data
            </Button>
          </Alert>
        )}
        {local.lastRepair && (
          <Code block mt="sm" data-testid="repair-report">
            {local.lastRepair}
          </Code>
        )}
        <Group mt="sm">
          <Button size="xs" onClick={() => void run('service.start', {})} disabled={running} loading={pending === 'service.start'}>
            Start
          </Button>
          <Button size="xs" variant="default" onClick={() => void run('service.stop', {})} disabled={!running} loading={pending === 'service.stop'}>
            Stop
          </Button>
          <Button size="xs" variant="default" onClick={() => void run('service.restart', {})} loading={pending === 'service.restart'}>
            Restart
          </Button>
        </Group>
        <LocalSettingsForm
          key={`${local.settings.host}:${local.settings.port}`}
          state={state}
          error={error}
          pending={pending === 'local.update'}
          onSave={(settings) => void run('local.update', { ...local.settings, ...settings })}
        />
        <Group mt="md" gap="xs" align="center" data-testid="backup-folder">
          <Text size="sm">
            Scheduled backups go to {local.settings.backupDir ? <Code>{local.settings.backupDir}</Code> : 'the backups folder beside the data directory'}.
          </Text>
          <Button size="compact-sm" variant="light" onClick={() => void run('local.chooseBackupDir', {})} loading={pending === 'local.chooseBackupDir'}>
            Choose folder…
          </Button>
          {local.settings.backupDir && (
            <Button size="compact-sm" variant="subtle" onClick={() => void run('local.update', { port: local.settings.port, host: local.settings.host })}>
              Use the default
            </Button>
          )}
        </Group>
        {local.restartNeeded && (
          <Alert color="yellow" mt="sm">
            The new settings apply when the service restarts.{' '}
            <Button size="compact-xs" variant="light" onClick={() => void run('service.restart', {})}>
              Restart now
            </Button>
          </Alert>
        )}
        <Switch
          mt="md"
          label="Keep the local service running when the window is closed"
          checked={state.preferences.keepServiceRunning}
          onChange={(e) => void run('preferences.update', { keepServiceRunning: e.currentTarget.checked })}
        />
      </Paper>
      <Paper withBorder p="md">
        <Title order={4} mb="sm">
          Connections
        </Title>
        <Table aria-label="Saved connections">
          <Table.Tbody>
            {state.profiles.map((profile) => (
              <Table.Tr key={profile.id}>
                <Table.Td>
                  <Text fw={500}>{profile.label}</Text>
                  <Text size="xs" c="dimmed">
                    {profile.kind} · {profile.url}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <Group gap="xs" justify="flex-end">
                    {profile.active ? (
                      <Badge color="teal">Managing now</Badge>
                    ) : (
                      <Button size="xs" variant="light" onClick={() => void run('connection.activate', { id: profile.id })}>
                        Switch to it
                      </Button>
                    )}
                    {profile.kind === 'remote' && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => void run('remote.remove', { id: profile.id })}>
                        Remove
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <RemoteForm secure={state.secureStorage} error={error} pending={pending === 'remote.save'} onSave={(input) => run('remote.save', input)} />
      </Paper>
    </Stack>
  );
}

function LocalSettingsForm({ state, error, pending, onSave }: { state: DesktopState; error: AdminError | undefined; pending: boolean; onSave: (settings: { port: number; host: string }) => void }) {
  const [port, setPort] = useState<number | string>(state.local.settings.port);
  const [host, setHost] = useState(state.local.settings.host);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ port: Number(port), host });
  };
  return (
    <form onSubmit={submit}>
      <Group align="flex-end" mt="md">
        <NumberInput label="Port" description="0 picks a free port" value={port} onChange={setPort} min={0} max={65535} w={140} error={fieldError(error, 'port')} />
        <TextInput label="Listen address" description="127.0.0.1: this machine only" value={host} onChange={(e) => setHost(e.currentTarget.value)} w={220} error={fieldError(error, 'host')} />
        <Button type="submit" variant="default" loading={pending}>
          Save
        </Button>
      </Group>
    </form>
  );
}

function RemoteForm({ secure, error, pending, onSave }: { secure: boolean; error: AdminError | undefined; pending: boolean; onSave: (input: { label: string; url: string; token: string }) => Promise<boolean> }) {
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await onSave({ label, url, token })) {
      setLabel('');
      setUrl('');
      setToken('');
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)}>
      <Title order={5} mt="md">
        Add a remote deployment
      </Title>
      {!secure && (
        <Alert color="orange" mt="xs">
          This system offers no encrypted storage, so an admin token cannot be saved here.
        </Alert>
      )}
      <Group align="flex-end" mt="xs">
        <TextInput label="Name" value={label} onChange={(e) => setLabel(e.currentTarget.value)} error={fieldError(error, 'label')} required />
        <TextInput label="URL" placeholder="https://lrs.example.org" value={url} onChange={(e) => setUrl(e.currentTarget.value)} error={fieldError(error, 'url')} required w={280} />
        <PasswordInput label="Admin token" value={token} onChange={(e) => setToken(e.currentTarget.value)} error={fieldError(error, 'token')} required w={220} />
        <Button type="submit" loading={pending} disabled={!secure}>
          Test and save
        </Button>
      </Group>
      <Text size="xs" c="dimmed" mt={4}>
        The connection is tested before it is saved; the token is kept encrypted with the system's key store.
      </Text>
    </form>
  );
}
