import { Alert, Button, Group, List, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useState } from 'react';
import type { ErasureCountsView, StoreSummaryView } from '../../../src-server/admin/contract';
import { useEraseLearner } from './mutations';

/** One line per IFI: an email address, or the JSON of an Agent. */
function agentsOf(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      if (line.startsWith('{')) {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return { unreadable: line };
        }
      }
      return { mbox: /^mailto:/i.test(line) ? line : `mailto:${line}` };
    });
}

const LABELS: ReadonlyArray<[keyof ErasureCountsView, string]> = [
  ['statements', 'statements'],
  ['attachments', 'attachments'],
  ['rejections', 'rejected entries'],
  ['refusals', 'refused requests'],
  ['stateDocuments', 'State documents'],
  ['agentProfileDocuments', 'Agent Profile documents'],
  ['receivedCopies', 'copies as received (of statements that stay)'],
  ['testBenchRecords', 'Test Bench records'],
];

/** Forgetting a learner: what would go is shown first (a dry run), then "Erase" removes it. */
export function EraseLearnerModal({ store, onClose, onDone }: { store: StoreSummaryView; onClose: () => void; onDone: (counts: ErasureCountsView) => void }) {
  const erase = useEraseLearner();
  const [text, setText] = useState('');
  const [preview, setPreview] = useState<{ for: string; counts: ErasureCountsView } | null>(null);
  const shown = preview !== null && preview.for === text ? preview.counts : null;

  const run = async (dryRun: boolean) => {
    try {
      const outcome = await erase.run({ slug: store.slug, agents: agentsOf(text), dryRun });
      if (dryRun) setPreview({ for: text, counts: outcome.counts });
      else onDone(outcome.counts);
    } catch {
      // shown below
    }
  };
  return (
    <Modal opened onClose={onClose} title={`Forget a learner in “${store.name}”`} size="lg">
      <Stack>
        <Textarea
          label="The learner's identifiers, one a line"
          description="An email address, or the JSON of an Agent such as {&quot;account&quot;: {&quot;homePage&quot;: &quot;https://lms.example.com&quot;, &quot;name&quot;: &quot;ada&quot;}}. Give every one the person has."
          autosize
          minRows={2}
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          data-autofocus
        />
        {erase.error && <Alert color="red">{erase.error.message}</Alert>}
        {shown && (
          <Alert color="orange" title="Erasing removes" data-testid="erasure-preview">
            <List size="sm">
              {LABELS.map(([key, label]) => (
                <List.Item key={key}>
                  {shown[key]} {label}
                </List.Item>
              ))}
            </List>
            <Text size="xs" mt="xs">
              Statements of others that refer to hers stay. Backups taken before keep her until they age out; a restore erases her again.
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="light" onClick={() => void run(true)} loading={erase.pending && !shown} disabled={text.trim() === ''}>
            Show what would go
          </Button>
          <Button color="red" onClick={() => void run(false)} loading={erase.pending && shown !== null} disabled={shown === null}>
            Erase
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
