import { Alert, Modal, NumberInput, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { StoreSummaryView } from '../../../src-server/admin/contract';
import { DialogActions } from '../../ui/DialogActions';
import { fieldError, formError } from '../../ui/field-error';
import { useRenameStore } from './mutations';

type Kind = 'statementsDays' | 'rejectedDays' | 'refusedDays';

const FIELDS: ReadonlyArray<{ kind: Kind; label: string; empty: string }> = [
  { kind: 'statementsDays', label: 'Statements', empty: 'Kept forever when empty.' },
  { kind: 'rejectedDays', label: 'Rejected statements', empty: 'As the service keeps them when empty (30 days, at most 10,000, by default).' },
  { kind: 'refusedDays', label: 'Refused requests', empty: 'As the service keeps them when empty (30 days by default); days here can only shorten that.' },
];

/** How long the Store keeps what it receives: days per kind, empty for the default. */
export function RetentionModal({ store, onClose, onDone }: { store: StoreSummaryView; onClose: () => void; onDone: () => void }) {
  const save = useRenameStore();
  const current = store.retention ?? { statementsDays: null, rejectedDays: null, refusedDays: null };
  const [days, setDays] = useState<Record<Kind, number | null>>({ ...current });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await save.run({ slug: store.slug, retention: days });
      onDone();
    } catch {
      // shown below
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Retention of “${store.name}”`}>
      <form onSubmit={(event) => void submit(event)}>
        <Stack>
          <Text size="sm">Older entries are removed in small steps every ten minutes, without holding up content.</Text>
          {FIELDS.map(({ kind, label, empty }, i) => (
            <NumberInput
              key={kind}
              label={`${label}: days kept`}
              description={empty}
              placeholder="default"
              min={1}
              max={36_500}
              allowDecimal={false}
              value={days[kind] ?? ''}
              onChange={(value) => setDays((before) => ({ ...before, [kind]: typeof value === 'number' ? value : value === '' ? null : Number(value) }))}
              error={fieldError(save.error, `retention.${kind}`)}
              data-autofocus={i === 0 || undefined}
            />
          ))}
          {formError(save.error, FIELDS.map((f) => `retention.${f.kind}`)) && <Alert color="red">{formError(save.error, FIELDS.map((f) => `retention.${f.kind}`))}</Alert>}
          <DialogActions onCancel={onClose} submitLabel="Save retention" pending={save.pending} />
        </Stack>
      </form>
    </Modal>
  );
}
