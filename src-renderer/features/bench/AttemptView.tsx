import { Alert, Anchor, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useState } from 'react';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import type { AttemptView as Attempt } from '../../../src-server/admin/contract';
import { dateTime } from '../../ui/format';
import { ErrorState, LoadingState } from '../../ui/StateViews';
import { agentName, statementSentence } from '../explorer/statement-sentence';
import { LiveBadge } from '../../ui/LiveBadge';
import { AttemptUnits } from './AttemptUnits';
import { useAttempt, useClearReference, usePackages, useSetReference } from './queries';

type Outcome = Attempt['outcome'];

function yesNo(value: boolean | null, yes: string, no: string): string {
  return value === null ? 'not reported' : value ? yes : no;
}

function scoreText(score: Outcome['score']): string {
  if (!score) return 'not reported';
  if (score.scaled !== undefined) return `${Math.round(score.scaled * 100)}%`;
  if (score.raw !== undefined) return score.max !== undefined ? `${score.raw} / ${score.max}` : String(score.raw);
  return 'not reported';
}

/** The attempt as an LMS sees it, the rules it broke, and its timeline, live. */
export function AttemptView({ slug, registration, onBack }: { slug: string; registration: string; onBack: () => void }) {
  const client = useAdminClient();
  const attempt = useAttempt(slug, registration);
  const packages = usePackages(slug);
  const setReference = useSetReference();
  const clearReference = useClearReference();
  const [downloadError, setDownloadError] = useState<AdminError | undefined>();
  const saveReport = (format: 'html' | 'json') => {
    setDownloadError(undefined);
    client.saveAttemptReport(slug, registration, format).catch((error: unknown) => setDownloadError(toAdminError(error)));
  };
  if (attempt.error) return <ErrorState title="The attempt could not be loaded" error={attempt.error} onRetry={attempt.reload} />;
  if (attempt.loading || !attempt.data) return <LoadingState label="Loading the attempt…" />;
  const view = attempt.data;
  const flagged = new Map<string, Attempt['violations']>();
  for (const violation of view.violations) {
    if (violation.statementId === null) continue;
    flagged.set(violation.statementId, [...(flagged.get(violation.statementId) ?? []), violation]);
  }
  const errors = view.violations.filter((v) => v.severity === 'error').length;
  const pkg = packages.data?.packages.find((candidate) => candidate.id === view.packageId);

  return (
    <Stack gap="lg" data-testid="attempt">
      <Group justify="space-between">
        <Anchor component="button" type="button" onClick={onBack} size="sm">
          ← All attempts
        </Anchor>
        <Group gap="xs">
          <LiveBadge state={attempt.live} />
          <Text size="sm" c="dimmed">
            {agentName(view.actor)} · registration <Code>{view.registration}</Code>
          </Text>
        </Group>
      </Group>

      <Group gap="xs">
        <Button size="xs" variant="light" onClick={() => saveReport('html')}>
          Download report (HTML)
        </Button>
        <Button size="xs" variant="subtle" onClick={() => saveReport('json')}>
          Download as JSON
        </Button>
        <Button
          size="xs"
          variant="light"
          color="grape"
          loading={setReference.pending}
          onClick={() =>
            void setReference
              .run({ slug, id: view.packageId, completion: view.outcome.completion, success: view.outcome.success, minScore: view.outcome.score?.scaled ?? null })
              .then(attempt.reload, () => undefined)
          }
        >
          Mark as the expected outcome
        </Button>
        {view.reference && (
          <Button size="xs" variant="subtle" color="gray" onClick={() => void clearReference.run({ slug, id: view.packageId }).then(attempt.reload, () => undefined)}>
            Clear the expected outcome
          </Button>
        )}
      </Group>
      {(downloadError ?? setReference.error ?? clearReference.error) && (
        <Alert color="red" role="alert">
          {(downloadError ?? setReference.error ?? clearReference.error)!.message}
        </Alert>
      )}

      <SimpleGrid cols={{ base: 2, md: 4 }} data-testid="outcome">
        <OutcomeCell label="Completion" value={yesNo(view.outcome.completion, 'completed', 'not completed')} />
        <OutcomeCell label="Success" value={yesNo(view.outcome.success, 'passed', 'failed')} />
        <OutcomeCell label="Score" value={scoreText(view.outcome.score)} />
        <OutcomeCell label="Duration" value={view.outcome.duration ?? 'not reported'} />
      </SimpleGrid>

      {view.verdict && (
        <Alert color={view.verdict.met ? 'green' : 'orange'} title={view.verdict.met ? 'Meets the expected outcome' : 'Does not meet the expected outcome'} data-testid="verdict">
          <Stack gap={2}>
            {view.verdict.criteria.map((criterion) => (
              <Text key={criterion.criterion} size="sm">
                {criterion.met ? '✓' : '✗'} {criterion.criterion === 'minScore' ? 'Score' : criterion.criterion === 'completion' ? 'Completion' : 'Success'}: expected {criterion.expected.toLowerCase()}, got{' '}
                {criterion.actual.toLowerCase()}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}

      {pkg?.kind === 'cmi5' && <AttemptUnits slug={slug} view={view} pkg={pkg} onChanged={attempt.reload} />}

      {view.violations.length === 0 ? (
        <Alert color="green" title="No rule broken" data-testid="violations">
          Every statement so far follows the rules the Test Bench checks.
        </Alert>
      ) : (
        <Alert color={errors > 0 ? 'red' : 'yellow'} title={`${view.violations.length} rule${view.violations.length === 1 ? '' : 's'} broken`} data-testid="violations">
          <Stack gap={4}>
            {view.violations.map((violation, index) => (
              <Text key={`${violation.statementId ?? ''}-${violation.rule}-${index}`} size="sm">
                <Badge size="xs" color={violation.severity === 'error' ? 'red' : 'yellow'} mr="xs">
                  {violation.severity}
                </Badge>
                {violation.message} <Code>{violation.rule}</Code>
              </Text>
            ))}
          </Stack>
        </Alert>
      )}

      <Paper withBorder p="md" radius="md">
        <Title order={4} mb="sm">
          Timeline
        </Title>
        <Table verticalSpacing="xs" aria-label="Timeline">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Stored</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Statement</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {timeline(view).map((entry) => {
              if (entry.kind === 'write') return <DocumentWriteRow key={`write-${entry.write.id}`} write={entry.write} />;
              const row = entry.statement;
              const broken = flagged.get(row.id) ?? [];
              return (
                <Table.Tr key={row.id} data-statement={row.id} data-broken={broken.length > 0 ? 'true' : undefined}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Tooltip label={dateTime(row.stored)}>
                      <Text size="sm">{new Date(row.stored).toLocaleTimeString()}</Text>
                    </Tooltip>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={row.byLms ? 'violet' : 'blue'}>
                      {row.byLms ? 'LMS' : 'course'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" td={row.voided ? 'line-through' : undefined}>
                      {statementSentence(withPackageTitle(row.statement, view.activityTitles))}
                    </Text>
                    {broken.map((violation) => (
                      <Text key={violation.rule} size="xs" c={violation.severity === 'error' ? 'red' : 'yellow.8'}>
                        ⚠ {violation.message}
                      </Text>
                    ))}
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Paper>

      <Paper withBorder p="md" radius="md">
        <Title order={4} mb="sm">
          State documents
        </Title>
        {view.documents.length === 0 ? (
          <Text size="sm" c="dimmed">
            None written in this attempt.
          </Text>
        ) : (
          <Stack gap="sm">
            {view.documents.map((document) => (
              <Stack key={`${document.activityId} ${document.stateId}`} gap={4}>
                <Text size="sm" fw={500}>
                  {document.stateId} <Text span size="xs" c="dimmed">updated {dateTime(document.updated)}</Text>
                </Text>
                <Code block>{typeof document.content === 'string' ? document.content : JSON.stringify(document.content, null, 2)}</Code>
              </Stack>
            ))}
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}

type DocumentWrite = Attempt['documentWrites'][number];
type TimelineEntry = { kind: 'statement'; at: string; statement: Attempt['statements'][number] } | { kind: 'write'; at: string; write: DocumentWrite };

/** Statements and State writes together, in the order they happened. */
function timeline(view: Attempt): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    ...view.statements.map((statement) => ({ kind: 'statement' as const, at: statement.stored, statement })),
    ...view.documentWrites.map((write) => ({ kind: 'write' as const, at: write.at, write })),
  ];
  return entries.sort((a, b) => a.at.localeCompare(b.at));
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const REFUSED: Record<number, string> = {
  409: 'refused (409): it named no version, or the document kept changing',
  412: 'refused (412): the version it named is no longer the current one',
};

function DocumentWriteRow({ write }: { write: DocumentWrite }) {
  const refused = write.status !== 204;
  return (
    <Table.Tr data-document-write={write.stateId} data-refused={refused ? 'true' : undefined}>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <Tooltip label={dateTime(write.at)}>
          <Text size="sm">{new Date(write.at).toLocaleTimeString()}</Text>
        </Tooltip>
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color={refused ? 'orange' : 'teal'}>
          State
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          {write.method} “{write.stateId}” {refused ? REFUSED[write.status] ?? `refused (${write.status})` : write.method === 'DELETE' ? 'deleted' : ''}
        </Text>
        {!refused &&
          write.method !== 'DELETE' &&
          (write.changes === null ? (
            <Text size="xs" c="dimmed">
              content not shown (not JSON or text, or larger than 64 KB)
            </Text>
          ) : write.changes.length === 0 ? (
            <Text size="xs" c="dimmed">
              no change
            </Text>
          ) : (
            write.changes.map((change) => (
              <Text key={change.path} size="xs" ff="monospace">
                {change.path || '(document)'}: {shortJson(change.before)} → {shortJson(change.after)}
              </Text>
            ))
          ))}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * The statement with its object named as the package names it, when the statement itself does
 * not: a cmi5 AU's statements name their object only by the LMS's id.
 */
function withPackageTitle(statement: Record<string, unknown>, titles: Record<string, string>): Record<string, unknown> {
  const object = statement['object'] as { id?: unknown; definition?: { name?: unknown } } | undefined;
  if (typeof object?.id !== 'string' || titles[object.id] === undefined || object.definition?.name !== undefined) return statement;
  return { ...statement, object: { ...object, definition: { ...object.definition, name: { 'en-US': titles[object.id] } } } };
}

function OutcomeCell({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text fw={600} data-outcome={label.toLowerCase()}>
        {value}
      </Text>
    </Paper>
  );
}
