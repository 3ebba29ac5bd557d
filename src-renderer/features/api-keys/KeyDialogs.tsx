import { Alert, Button, Checkbox, Group, Modal, Select, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { SCOPES } from '../../../src-server/admin/contract';
import type { ApiKeyView, CreatedApiKeyView, Scope } from '../../../src-server/admin/contract';
import { CopyField } from '../../ui/CopyField';
import { AuthoringGuideButton } from './AuthoringGuide';
import { fieldError, formError } from '../../ui/field-error';
import { dateTime, localInputToIso, timeLeft } from '../../ui/format';
import { keySnippets } from './key-snippets';
import { useCreateApiKey, useRevokeApiKey, useRotateApiKey } from './mutations';
import { DialogActions } from '../../ui/DialogActions';

const SCOPE_HELP: Record<Scope, string> = {
  'statements/write': 'send statements',
  'statements/read': 'read every statement',
  'statements/read/mine': 'read its own statements',
  state: 'read and write state',
  define: 'define activities',
  profile: 'read and write profiles',
  'all/read': 'read everything',
  all: 'everything',
};

export function CreateKeyModal({ slug, opened, onClose, onCreated }: { slug: string; opened: boolean; onClose: () => void; onCreated: (key: CreatedApiKeyView) => void }) {
  const create = useCreateApiKey();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['all']);
  const [expires, setExpires] = useState('');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const key = await create.run({ slug, name, scopes: scopes as Scope[], expiresAt: localInputToIso(expires) ?? null });
      setName('');
      setScopes(['all']);
      setExpires('');
      onCreated(key);
    } catch {
      // shown below
    }
  };
  const close = () => {
    create.reset();
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={`Create an API key for ${slug}`} size="lg">
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <TextInput label="Name" description="Who uses it, e.g. “Storyline export”." value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} required data-autofocus />
          <Checkbox.Group label="Scopes" value={scopes} onChange={setScopes} error={fieldError(create.error, 'scopes')}>
            <SimpleGrid cols={2} mt="xs" spacing="xs">
              {SCOPES.map((scope) => (
                <Checkbox key={scope} value={scope} label={`${scope} — ${SCOPE_HELP[scope]}`} />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <TextInput
            type="datetime-local"
            label="Expires (optional)"
            description="Leave empty for a key that does not expire."
            value={expires}
            onChange={(e) => setExpires(e.currentTarget.value)}
            error={fieldError(create.error, 'expiresAt')}
          />
          {formError(create.error, ['name', 'scopes', 'expiresAt']) && <Alert color="red">{formError(create.error, ['name', 'scopes', 'expiresAt'])}</Alert>}
          <DialogActions onCancel={close} submitLabel="Create key" pending={create.pending} />
        </Stack>
      </form>
    </Modal>
  );
}

/** The one time the secret is visible: everything a person needs to paste, each with a copy button. */
export function NewKeyModal({ created, endpoint, previous, onClose }: { created: CreatedApiKeyView; endpoint: string; previous?: ApiKeyView; onClose: () => void }) {
  const snippets = keySnippets({ endpoint, id: created.id, secret: created.secret, token: created.token, basic: created.basic });
  return (
    <Modal opened onClose={onClose} title={previous ? 'Replacement key created' : 'API key created'} size="xl" closeOnClickOutside={false}>
      <Stack>
        <Alert color="yellow" title="Copy the secret now">
          This is the only time the secret and token are shown. Lore keeps only a hash of them.
        </Alert>
        {previous?.expiresAt && (
          <Alert color="blue" title="The old key still works for a while" data-testid="old-key-validity">
            {previous.name} ({previous.id}) keeps working until {dateTime(previous.expiresAt)} — {timeLeft(previous.expiresAt)}. Move your
            content to the new key before then; its “last used” time shows when traffic has moved.
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <CopyField label="Key id" value={created.id} />
          <CopyField label="Secret" value={created.secret} />
        </SimpleGrid>
        <CopyField label="Bearer token" value={created.token} />
        <CopyField label="Endpoint" value={endpoint} />
        <CopyField label="For authoring tools" value={snippets.authoringTool} block />
        <Group justify="flex-end">
          <AuthoringGuideButton variant="subtle" />
        </Group>
        <CopyField label="Basic authorization header" value={snippets.basicHeader} />
        <CopyField label="curl command" value={snippets.curl} block />
        <Group justify="flex-end">
          <Button onClick={onClose}>I have copied it</Button>
        </Group>
      </Stack>
    </Modal>
  );
}

const GRACE_CHOICES = [
  { value: '0', label: 'Stop it now' },
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days (default)' },
  { value: '30', label: '30 days' },
];

export function RotateKeyModal({ slug, apiKey, onClose, onRotated }: { slug: string; apiKey: ApiKeyView; onClose: () => void; onRotated: (replacement: CreatedApiKeyView, previous: ApiKeyView) => void }) {
  const rotate = useRotateApiKey();
  const [days, setDays] = useState('7');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // "Stop it now" still needs an instant in the future: a minute lets in-flight requests finish.
    const ms = days === '0' ? 60_000 : Number(days) * 86_400_000;
    try {
      const result = await rotate.run({ slug, id: apiKey.id, oldKeyExpiresAt: new Date(Date.now() + ms).toISOString() });
      onRotated(result.replacement, result.previous);
    } catch {
      // shown below
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Rotate “${apiKey.name}”`}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <Text size="sm">A replacement key is issued with the same scopes. The old key keeps working for the time you choose, so nothing breaks while you update your content.</Text>
          <Select label="Old key keeps working for" data={GRACE_CHOICES} value={days} onChange={(v) => setDays(v ?? '7')} allowDeselect={false} />
          {rotate.error && <Alert color="red">{rotate.error.message}</Alert>}
          <DialogActions onCancel={onClose} submitLabel="Rotate key" pending={rotate.pending} />
        </Stack>
      </form>
    </Modal>
  );
}

export function RevokeKeyModal({ slug, apiKey, onClose, onRevoked }: { slug: string; apiKey: ApiKeyView; onClose: () => void; onRevoked: () => void }) {
  const revoke = useRevokeApiKey();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await revoke.run({ slug, id: apiKey.id });
      onRevoked();
    } catch {
      // shown below
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Revoke “${apiKey.name}”?`}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <Text size="sm">
            {apiKey.id} stops working at once: every request with it is refused with 401. This cannot be undone.
          </Text>
          {revoke.error && <Alert color="red">{revoke.error.message}</Alert>}
          <DialogActions onCancel={onClose} submitLabel="Revoke key" pending={revoke.pending} color="red" focusCancel />
        </Stack>
      </form>
    </Modal>
  );
}
