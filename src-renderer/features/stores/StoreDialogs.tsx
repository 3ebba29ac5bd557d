import { Alert, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Environment, StoreSummaryView } from '../../../src-server/admin/contract';
import { fieldError, formError } from '../../ui/field-error';
import { useCreateStore, useDeleteStore, useEmptyStore, useRenameStore } from './mutations';
import { DialogActions } from '../../ui/DialogActions';
import { LabeledSegmentedControl } from '../../ui/LabeledSegmentedControl';

export function CreateStoreModal({ opened, onClose, onCreated }: { opened: boolean; onClose: () => void; onCreated: () => void }) {
  const create = useCreateStore();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>('test');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await create.run({ slug, name, environment });
    } catch {
      return; // shown from create.error
    }
    setSlug('');
    setName('');
    setEnvironment('test');
    onCreated();
  };
  const close = () => {
    create.reset();
    onClose();
  };

  return (
    <Modal opened={opened} onClose={close} title="Create a Store">
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <TextInput
            label="Name"
            description="What people call it, e.g. “Onboarding course”."
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={fieldError(create.error, 'name')}
            required
            data-autofocus
          />
          <TextInput
            label="Slug"
            description="Part of the endpoint URL: lowercase letters, digits and hyphens."
            value={slug}
            onChange={(e) => setSlug(e.currentTarget.value.toLowerCase())}
            error={fieldError(create.error, 'slug')}
            required
          />
          <LabeledSegmentedControl<Environment>
            id="environment-label"
            label="Environment"
            value={environment}
            onChange={setEnvironment}
            data={[
              { value: 'test', label: 'Test' },
              { value: 'live', label: 'Live' },
            ]}
          >
            <Text size="xs" c="dimmed">
              A test Store can be emptied in one click; a live Store asks for its slug first.
            </Text>
          </LabeledSegmentedControl>
          {formError(create.error, ['name', 'slug']) && <Alert color="red">{formError(create.error, ['name', 'slug'])}</Alert>}
          <DialogActions onCancel={close} submitLabel="Create Store" pending={create.pending} />
        </Stack>
      </form>
    </Modal>
  );
}

export function RenameStoreModal({ store, onClose, onDone }: { store: StoreSummaryView; onClose: () => void; onDone: () => void }) {
  const rename = useRenameStore();
  const [name, setName] = useState(store.name);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await rename.run({ slug: store.slug, name });
      onDone();
    } catch {
      // shown below
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Rename “${store.name}”`}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={rename.error?.message} required data-autofocus />
          <Text size="xs" c="dimmed">
            The slug ({store.slug}) and the endpoint stay the same.
          </Text>
          <DialogActions onCancel={onClose} submitLabel="Rename" pending={rename.pending} />
        </Stack>
      </form>
    </Modal>
  );
}

/** Emptying or deleting: a test Store asks once, a live Store wants its slug typed back. */
export function DestructiveStoreModal({
  store,
  action,
  onClose,
  onDone,
}: {
  store: StoreSummaryView;
  action: 'empty' | 'delete';
  onClose: () => void;
  onDone: () => void;
}) {
  const empty = useEmptyStore();
  const remove = useDeleteStore();
  const mutation = action === 'empty' ? empty : remove;
  const [typed, setTyped] = useState('');
  const live = store.environment === 'live';
  const allowed = !live || typed === store.slug;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const input = live ? { slug: store.slug, confirm: typed } : { slug: store.slug };
      await (action === 'empty' ? empty.run(input) : remove.run(input));
      onDone();
    } catch {
      // shown below
    }
  };
  const verb = action === 'empty' ? 'Empty' : 'Delete';
  return (
    <Modal opened onClose={onClose} title={`${verb} “${store.name}”?`}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <Text size="sm">
            {action === 'empty'
              ? `Every statement of ${store.slug} (${store.statementCount} statements, ${store.rejectedCount} rejected) is removed. Its keys and endpoint stay.`
              : `The Store ${store.slug}, its ${store.statementCount} statements and its keys are removed. Content sending to its endpoint will be refused.`}
          </Text>
          {live && (
            <TextInput
              label={`This is a live Store. Type its slug (${store.slug}) to confirm.`}
              value={typed}
              onChange={(e) => setTyped(e.currentTarget.value)}
              data-autofocus
            />
          )}
          {mutation.error && <Alert color="red">{mutation.error.message}</Alert>}
          <DialogActions onCancel={onClose} submitLabel={`${verb} Store`} pending={mutation.pending} color="red" disabled={!allowed} />
        </Stack>
      </form>
    </Modal>
  );
}
