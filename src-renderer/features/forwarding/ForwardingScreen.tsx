import { Alert, Anchor, Button, Code, Group, Modal, PasswordInput, SegmentedControl, Select, Stack, Table, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import type { ForwarderView } from '../../../src-server/admin/contract';
import { routeHref } from '../../routes';
import { dateTime, relativeTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { useCreateForwarder, useDeadLetters, useDeleteForwarder, useForwarders, useRedeliver, useUpdateForwarder } from './queries';

/** Forwarding: a Store's statements sent on to another LRS or a webhook (docs/forwarding.md). */
export function ForwardingScreen({ store, onStoreChange }: { store: string | undefined; onStoreChange: (slug: string | undefined) => void }) {
  const stores = useStores();
  const selected = store ?? stores.data?.stores[0]?.slug;
  const selectedStore = stores.data?.stores.find((s) => s.slug === selected);
  const forwarders = useForwarders(selectedStore ? selected : undefined);
  const [creating, setCreating] = useState(false);
  const [letters, setLetters] = useState<ForwarderView | null>(null);
  const [deleting, setDeleting] = useState<ForwarderView | null>(null);
  const update = useUpdateForwarder();
  const remove = useDeleteForwarder();

  const act = async (work: Promise<unknown>) => {
    await work.catch(() => {});
    forwarders.reload();
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Forwarding</Title>
          <Text c="dimmed" size="sm">
            Send a Store&apos;s statements on, in order, to another LRS or a webhook. Nothing is lost while a destination is down: delivery
            resumes where it stopped.
          </Text>
        </div>
        {selectedStore && <Button onClick={() => setCreating(true)}>Add destination</Button>}
      </Group>
      {stores.error && <ErrorState title="The Stores could not be loaded" error={stores.error} onRetry={stores.reload} />}
      {stores.loading && !stores.data && <LoadingState label="Loading Stores…" />}
      {stores.data && stores.data.stores.length === 0 && (
        <EmptyState title="Create a Store first" action={<Anchor href={routeHref({ screen: 'stores' })}>Go to Stores</Anchor>}>
          Forwarding sends a Store&apos;s statements on.
        </EmptyState>
      )}
      {stores.data && stores.data.stores.length > 0 && <StorePicker stores={stores.data.stores} value={selected} onChange={onStoreChange} />}
      {(update.error ?? remove.error) && <Alert color="red">{(update.error ?? remove.error)!.message}</Alert>}
      {forwarders.error && <ErrorState title="The destinations could not be loaded" error={forwarders.error} onRetry={forwarders.reload} />}
      {selectedStore && forwarders.data && forwarders.data.forwarders.length === 0 && (
        <EmptyState title="No destinations yet" action={<Button onClick={() => setCreating(true)}>Add the first destination</Button>}>
          Statements of {selectedStore.name} stay here until you add a destination.
        </EmptyState>
      )}
      {selected && forwarders.data && forwarders.data.forwarders.length > 0 && (
        <Table striped withTableBorder aria-label="Destinations">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Destination</Table.Th>
              <Table.Th>Delivered</Table.Th>
              <Table.Th>Pending</Table.Th>
              <Table.Th>Last error</Table.Th>
              <Table.Th>Dead letters</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {forwarders.data.forwarders.map((f) => (
              <Table.Tr key={f.id} data-forwarder={f.id}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {f.kind === 'xapi' ? 'LRS' : 'Webhook'} {f.paused && <Text span c="orange">(paused)</Text>}
                  </Text>
                  <Code>{f.url}</Code>
                  {f.filter && (
                    <Text size="xs" c="dimmed">
                      only {[f.filter.verb, f.filter.activity, f.filter.status].filter(Boolean).join(', ')}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {f.deliveredAt ? (
                    <Tooltip label={`up to seq ${f.deliveredThrough.seq}${f.deliveredThrough.stored ? `, stored ${dateTime(f.deliveredThrough.stored)}` : ''}`}>
                      <Text size="sm" data-testid="delivered">delivered {relativeTime(f.deliveredAt)}</Text>
                    </Tooltip>
                  ) : (
                    <Text size="sm" c="dimmed">nothing yet</Text>
                  )}
                </Table.Td>
                <Table.Td data-testid="pending">{f.pending}</Table.Td>
                <Table.Td>
                  {f.lastError ? (
                    <Tooltip label={dateTime(f.lastError.at)}>
                      <Text size="sm" c={f.failingSince ? 'red' : 'dimmed'}>
                        {f.lastError.message}
                        {f.nextAttemptAt ? ` — next try ${relativeTime(f.nextAttemptAt)}` : ''}
                      </Text>
                    </Tooltip>
                  ) : (
                    <Text size="sm" c="dimmed">none</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {f.deadLetters > 0 ? (
                    <Button size="xs" variant="subtle" color="red" onClick={() => setLetters(f)}>
                      {f.deadLetters}
                    </Button>
                  ) : (
                    '0'
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => void act(update.run({ slug: selected, id: f.id, paused: !f.paused }))}>
                      {f.paused ? 'Resume' : 'Pause'}
                    </Button>
                    <Button size="xs" variant="light" color="red" aria-label={`Delete ${f.url}`} onClick={() => setDeleting(f)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {selected && creating && (
        <CreateForwarderModal
          slug={selected}
          onClose={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            forwarders.reload();
          }}
        />
      )}
      {selected && deleting && (
        <Modal opened onClose={() => setDeleting(null)} title="Delete this destination?">
          <Stack>
            <Text size="sm">
              Nothing more is sent to <Code>{deleting.url}</Code>; its {deleting.pending} pending statement(s) and {deleting.deadLetters} dead letter(s) are
              forgotten. The statements stay in the Store.
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setDeleting(null)}>
                Cancel
              </Button>
              <Button
                color="red"
                onClick={() => {
                  const id = deleting.id;
                  setDeleting(null);
                  void act(remove.run({ slug: selected, id }));
                }}
              >
                Delete
              </Button>
            </Group>
          </Stack>
        </Modal>
      )}
      {selected && letters && (
        <DeadLettersModal
          slug={selected}
          forwarder={letters}
          onClose={() => {
            setLetters(null);
            forwarders.reload();
          }}
        />
      )}
    </Stack>
  );
}

function CreateForwarderModal({ slug, onClose, onCreated }: { slug: string; onClose: () => void; onCreated: () => void }) {
  const create = useCreateForwarder();
  const [kind, setKind] = useState<'webhook' | 'xapi'>('webhook');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [verb, setVerb] = useState('');
  const [activity, setActivity] = useState('');
  const [status, setStatus] = useState<'any' | 'accepted' | 'voided'>('any');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const chosen = {
      ...(verb.trim() ? { verb: verb.trim() } : {}),
      ...(activity.trim() ? { activity: activity.trim() } : {}),
      ...(status === 'any' ? {} : { status }),
    };
    const filter = Object.keys(chosen).length > 0 ? { filter: chosen } : {};
    const credentials = kind === 'webhook' ? { secret } : { username, password };
    try {
      await create.run({ slug, kind, url, ...credentials, ...filter, from: 'now' });
      onCreated();
    } catch {
      // shown below
    }
  };

  return (
    <Modal opened onClose={onClose} title="Add a destination">
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <SegmentedControl
            value={kind}
            onChange={(value) => setKind(value as 'webhook' | 'xapi')}
            data={[
              { value: 'webhook', label: 'Webhook' },
              { value: 'xapi', label: 'Another LRS' },
            ]}
          />
          <TextInput required label={kind === 'webhook' ? 'Webhook URL' : "The other LRS's endpoint"} value={url} onChange={(e) => setUrl(e.currentTarget.value)} />
          {kind === 'webhook' ? (
            <PasswordInput required label="Signing secret" description="At least 16 characters; the receiver checks Lore-Signature with it. Not shown again." value={secret} onChange={(e) => setSecret(e.currentTarget.value)} />
          ) : (
            <>
              <TextInput required label="User name (key)" value={username} onChange={(e) => setUsername(e.currentTarget.value)} />
              <PasswordInput required label="Password (secret)" description="Not shown again." value={password} onChange={(e) => setPassword(e.currentTarget.value)} />
            </>
          )}
          <TextInput label="Only this verb (optional)" placeholder="http://adlnet.gov/expapi/verbs/completed" value={verb} onChange={(e) => setVerb(e.currentTarget.value)} />
          <TextInput label="Only this Activity (optional)" placeholder="http://example.com/course/module-1" value={activity} onChange={(e) => setActivity(e.currentTarget.value)} />
          <Select
            label="Statements"
            value={status}
            onChange={(value) => setStatus((value ?? 'any') as 'any' | 'accepted' | 'voided')}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
            data={[
              { value: 'any', label: 'All, voided ones too' },
              { value: 'accepted', label: 'Only those not voided' },
              { value: 'voided', label: 'Only voided ones' },
            ]}
          />
          {create.error && (
            <Alert color="red" role="alert">
              {create.error.message}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.pending}>
              Add
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function DeadLettersModal({ slug, forwarder, onClose }: { slug: string; forwarder: ForwarderView; onClose: () => void }) {
  const letters = useDeadLetters(slug, forwarder.id);
  const redeliver = useRedeliver();
  return (
    <Modal opened onClose={onClose} title="Dead letters" size="lg">
      <Stack>
        <Text size="sm" c="dimmed">
          Batches given up on after their retries, or refused by the destination. Redelivering sends them before anything newer.
        </Text>
        {letters.loading && <LoadingState label="Loading…" />}
        {letters.data?.deadLetters.map((letter) => (
          <div key={letter.id}>
            <Text size="sm">
              {letter.statementIds.length} statement(s), given up {relativeTime(letter.at)}
              {letter.queued ? ' — queued' : ''}
            </Text>
            <Text size="xs" c="red">
              {letter.error.message}
            </Text>
            <Text size="xs" c="dimmed">
              {letter.statementIds.map((statementId) => (
                <Code key={statementId} mr={4}>
                  {statementId}
                </Code>
              ))}
            </Text>
          </div>
        ))}
        {redeliver.error && <Alert color="red">{redeliver.error.message}</Alert>}
        <Group justify="flex-end">
          <Button
            loading={redeliver.pending}
            onClick={() =>
              void redeliver
                .run({ slug, id: forwarder.id })
                .then(onClose)
                .catch(() => {})
            }
          >
            Redeliver all
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
