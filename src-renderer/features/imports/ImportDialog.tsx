/**
 * Importing statements into a Store (docs/import.md): a pull from another LRS (endpoint, key,
 * secret, optional since) or an NDJSON file (an export: one statement as stored per line), and the
 * Store's imports with their progress and counts, asked again while one is under way.
 */
import { Alert, Badge, Button, Divider, FileButton, Group, List, Modal, PasswordInput, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { ImportJobView, StoreSummaryView } from '../../../src-server/admin/contract';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { fieldError, formError } from '../../ui/field-error';
import { relativeTime } from '../../ui/format';
import { useImports, useStartImport } from './queries';

const PULL_FIELDS = ['endpoint', 'key', 'secret', 'since'];
const STATE_COLORS: Record<ImportJobView['state'], string> = { running: 'blue', paused: 'yellow', failed: 'red', finished: 'teal' };

export function ImportDialog({ store, onClose }: { store: StoreSummaryView; onClose: () => void }) {
  const client = useAdminClient();
  const imports = useImports(store.slug);
  const start = useStartImport();
  const [endpoint, setEndpoint] = useState('');
  const [key, setKey] = useState('');
  const [secret, setSecret] = useState('');
  const [since, setSince] = useState('');
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<AdminError | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await start.run({ slug: store.slug, kind: 'lrs', endpoint, key, secret, ...(since.trim() === '' ? {} : { since: since.trim() }) });
    } catch {
      return; // shown from start.error
    }
    setSecret('');
    imports.reload();
  };

  const upload = async (file: File | null) => {
    if (!file || !client.importStatementsFile) return;
    setUploading(true);
    setUploadError(undefined);
    // The list shows the file's progress while it is read.
    const poll = setInterval(imports.reload, 1000);
    try {
      await client.importStatementsFile(store.slug, file, file.name);
    } catch (error) {
      setUploadError(toAdminError(error));
    } finally {
      clearInterval(poll);
      setUploading(false);
      imports.reload();
    }
  };

  const pullError = formError(start.error, PULL_FIELDS);
  return (
    <Modal opened onClose={onClose} title={`Import statements into ${store.name}`} size="xl">
      <Stack>
        <form onSubmit={(event) => void submit(event)} aria-label="Pull from another LRS">
          <Stack gap="xs">
            <Text fw={500}>From another LRS</Text>
            <Text size="sm" c="dimmed">
              Every statement it lists is copied here as it stored it (id, timestamp, stored time, authority), oldest first; voided ones stay voided. An import
              that is interrupted continues by itself.
            </Text>
            {pullError && (
              <Alert color="red" role="alert">
                {pullError}
              </Alert>
            )}
            <TextInput label="xAPI endpoint" placeholder="https://lrs.example.com/xapi/" value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)} error={fieldError(start.error, 'endpoint')} required />
            <Group grow align="flex-start">
              <TextInput label="Key" value={key} onChange={(e) => setKey(e.currentTarget.value)} error={fieldError(start.error, 'key')} required autoComplete="off" />
              <PasswordInput label="Secret" value={secret} onChange={(e) => setSecret(e.currentTarget.value)} error={fieldError(start.error, 'secret')} required autoComplete="off" />
            </Group>
            <TextInput
              label="Since (optional)"
              description="Only statements stored after this time, e.g. 2025-01-01T00:00:00Z."
              value={since}
              onChange={(e) => setSince(e.currentTarget.value)}
              error={fieldError(start.error, 'since')}
            />
            <Group justify="flex-end">
              <Button type="submit" loading={start.pending}>
                Start the import
              </Button>
            </Group>
          </Stack>
        </form>
        {client.importStatementsFile && (
          <>
            <Divider />
            <Group justify="space-between">
              <div>
                <Text fw={500}>From a file</Text>
                <Text size="sm" c="dimmed">
                  An NDJSON file: one statement as stored per line, as an export writes it.
                </Text>
              </div>
              <FileButton onChange={(file) => void upload(file)} accept=".ndjson,.jsonl,application/x-ndjson">
                {(props) => (
                  <Button {...props} variant="light" loading={uploading}>
                    Import a file (.ndjson)
                  </Button>
                )}
              </FileButton>
            </Group>
            {uploadError && (
              <Alert color="red" role="alert">
                {uploadError.message}
              </Alert>
            )}
          </>
        )}
        <Divider />
        <Text fw={500}>Imports of this Store</Text>
        {imports.error && <Alert color="red">The imports could not be loaded: {imports.error.message}</Alert>}
        {imports.data && imports.data.imports.length === 0 && (
          <Text size="sm" c="dimmed">
            None yet.
          </Text>
        )}
        {imports.data && imports.data.imports.length > 0 && <ImportTable jobs={imports.data.imports} />}
      </Stack>
    </Modal>
  );
}

function ImportTable({ jobs }: { jobs: ImportJobView[] }) {
  return (
    <Table aria-label="Imports" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Source</Table.Th>
          <Table.Th>State</Table.Th>
          <Table.Th>Read</Table.Th>
          <Table.Th>Imported</Table.Th>
          <Table.Th>Already present</Table.Th>
          <Table.Th>Voided</Table.Th>
          <Table.Th>Invalid</Table.Th>
          <Table.Th>Conflicts</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {jobs.map((job) => (
          <ImportRow key={job.id} job={job} />
        ))}
      </Table.Tbody>
    </Table>
  );
}

function ImportRow({ job }: { job: ImportJobView }) {
  const { counts } = job;
  const source = job.kind === 'lrs' ? job.endpoint : (job.fileName ?? 'NDJSON file');
  return (
    <>
      <Table.Tr data-import={job.id} data-state={job.state}>
        <Table.Td>
          <Text size="sm" style={{ wordBreak: 'break-all' }}>
            {source}
          </Text>
          <Text size="xs" c="dimmed">
            started {relativeTime(job.createdAt)}
          </Text>
        </Table.Td>
        <Table.Td>
          <Badge color={STATE_COLORS[job.state]} variant="light">
            {job.state}
          </Badge>
        </Table.Td>
        <Table.Td data-count="read">{counts.read}</Table.Td>
        <Table.Td data-count="imported">{counts.imported}</Table.Td>
        <Table.Td data-count="alreadyPresent">{counts.alreadyPresent}</Table.Td>
        <Table.Td data-count="voided">{counts.voided}</Table.Td>
        <Table.Td data-count="invalid">{counts.invalid}</Table.Td>
        <Table.Td data-count="conflicts">{counts.conflicts}</Table.Td>
      </Table.Tr>
      {(job.error || job.problems.length > 0) && (
        <Table.Tr>
          <Table.Td colSpan={8}>
            {job.error && (
              <Text size="sm" c="red" role="alert">
                {job.error}
              </Text>
            )}
            {job.problems.length > 0 && (
              <List size="xs" spacing={2}>
                {job.problems.slice(0, 10).map((problem, index) => (
                  <List.Item key={index}>
                    {problem.line !== undefined ? `Line ${problem.line}: ` : ''}
                    {problem.statementId ? `${problem.statementId}: ` : ''}
                    {problem.message}
                  </List.Item>
                ))}
                {job.problems.length > 10 && <List.Item>… and {counts.invalid + counts.conflicts - 10} more</List.Item>}
              </List>
            )}
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}
