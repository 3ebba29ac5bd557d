import { Alert, Anchor, Badge, Button, FileButton, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useRef, useState } from 'react';
import type { AdminOutput, PackageView } from '../../api/admin-client';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { routeHref } from '../../routes';
import { DataTable } from '../../ui/DataTable';
import { bytes, dateTime, relativeTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { agentName } from '../explorer/statement-sentence';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { AttemptView } from './AttemptView';
import { LaunchDialog } from './LaunchDialog';
import { zipFolder } from './folder-zip';
import { useAttempts, useDeletePackage, usePackages } from './queries';
import { useEmptyStore } from '../stores/mutations';

type AttemptSummary = AdminOutput<'attempts.list'>['attempts'][number];
const packageColumn = createColumnHelper<PackageView>();
const attemptColumn = createColumnHelper<AttemptSummary>();

/**
 * The Test Bench: import a published course (Tin Can or cmi5) into a test Store, launch it for a
 * test learner, and watch the attempt. With a registration, the attempt itself.
 */
export function BenchScreen({
  store,
  registration,
  onNavigate,
}: {
  store: string | undefined;
  registration: string | undefined;
  onNavigate: (store: string | undefined, registration?: string) => void;
}) {
  const stores = useStores();
  const testStores = useMemo(() => (stores.data?.stores ?? []).filter((s) => s.environment === 'test'), [stores.data]);
  const selected = store ?? testStores[0]?.slug;

  if (stores.loading) return <LoadingState label="Loading Stores…" />;
  if (stores.error) return <ErrorState title="The Stores could not be loaded" error={stores.error} onRetry={stores.reload} />;

  return (
    <Stack gap="lg">
      <Group justify="space-between" align="end">
        <Stack gap={4}>
          <Title order={2}>Test Bench</Title>
          <Text c="dimmed" size="sm">
            Launch a published course against a test Store and see every statement and State document of the attempt, with the rules it breaks.
          </Text>
        </Stack>
        {testStores.length > 0 && <StorePicker stores={testStores} value={selected} onChange={(slug) => onNavigate(slug)} />}
      </Group>
      {selected === undefined ? (
        <EmptyState title="No test Store yet">
          Only test Stores launch courses, so that trial attempts never mix with learners' data. Create a test Store on the Stores screen first.
        </EmptyState>
      ) : registration !== undefined ? (
        <AttemptView slug={selected} registration={registration} onBack={() => onNavigate(selected)} />
      ) : (
        <StoreBench slug={selected} onOpenAttempt={(next) => onNavigate(selected, next)} />
      )}
    </Stack>
  );
}

function StoreBench({ slug, onOpenAttempt }: { slug: string; onOpenAttempt: (registration: string) => void }) {
  const client = useAdminClient();
  const packages = usePackages(slug);
  const attempts = useAttempts(slug);
  const deletePackage = useDeletePackage();
  const [importing, setImporting] = useState(false);
  const [importError, setImportError] = useState<AdminError | undefined>();
  const [imported, setImported] = useState<string | undefined>();
  const [launching, setLaunching] = useState<PackageView | null>(null);
  const emptyStore = useEmptyStore();
  const [confirmReset, setConfirmReset] = useState(false);

  const folderInput = useRef<HTMLInputElement>(null);
  const importFolder = async (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const picked = [...files].map((file) => ({ path: file.webkitRelativePath || file.name, bytes: () => file.arrayBuffer() }));
    await importZip(await zipFolder(picked));
    if (folderInput.current) folderInput.current.value = '';
  };

  const importZip = async (file: Blob | null) => {
    if (!file) return;
    setImporting(true);
    setImportError(undefined);
    setImported(undefined);
    try {
      const pkg = await client.importPackage(slug, file);
      setImported(`“${pkg.title}” imported (${pkg.kind === 'cmi5' ? 'cmi5' : 'Tin Can'}, ${pkg.files} files).`);
      packages.reload();
    } catch (error) {
      setImportError(toAdminError(error));
    } finally {
      setImporting(false);
    }
  };

  const packageColumns = useMemo(
    () => [
      packageColumn.accessor('title', { header: 'Course', cell: (info) => <Text fw={500}>{info.getValue()}</Text> }),
      packageColumn.accessor('kind', { header: 'Kind', cell: (info) => <Badge variant="light">{info.getValue() === 'cmi5' ? 'cmi5' : 'Tin Can'}</Badge> }),
      packageColumn.accessor('units', { header: 'Units', cell: (info) => info.getValue().length }),
      packageColumn.accessor('bytes', { header: 'Size', cell: (info) => bytes(info.getValue()) }),
      packageColumn.accessor('createdAt', {
        header: 'Imported',
        cell: (info) => (
          <Tooltip label={dateTime(info.getValue())}>
            <Text size="sm">{relativeTime(info.getValue())}</Text>
          </Tooltip>
        ),
      }),
      packageColumn.display({
        id: 'actions',
        header: '',
        cell: (info) => (
          <Group gap="xs" justify="flex-end" wrap="nowrap">
            <Button size="xs" onClick={() => setLaunching(info.row.original)}>
              Launch…
            </Button>
            <Button
              size="xs"
              variant="subtle"
              color="red"
              onClick={() => void deletePackage.run({ slug, id: info.row.original.id }).then(() => packages.reload(), () => undefined)}
            >
              Delete
            </Button>
          </Group>
        ),
      }),
    ],
    [deletePackage, packages, slug],
  );

  const attemptColumns = useMemo(
    () => [
      attemptColumn.accessor('lastLaunchedAt', {
        header: 'Launched',
        cell: (info) => (
          <Tooltip label={dateTime(info.getValue())}>
            <Text size="sm">{relativeTime(info.getValue())}</Text>
          </Tooltip>
        ),
      }),
      attemptColumn.accessor('actor', { header: 'Learner', cell: (info) => agentName(info.getValue()) }),
      attemptColumn.accessor('title', { header: 'Course' }),
      attemptColumn.accessor('launches', { header: 'Launches' }),
      attemptColumn.display({
        id: 'open',
        header: '',
        cell: (info) => (
          <Anchor href={routeHref({ screen: 'bench', store: slug, registration: info.row.original.registration })} size="sm">
            Open attempt
          </Anchor>
        ),
      }),
    ],
    [slug],
  );

  return (
    <Stack gap="lg">
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={4}>Packages</Title>
            <Group gap="xs">
              <FileButton onChange={(file) => void importZip(file)} accept=".zip,application/zip">
                {(props) => (
                  <Button {...props} loading={importing}>
                    Import a package (.zip)
                  </Button>
                )}
              </FileButton>
              {/* A folder as the tool published it, unzipped: zipped here, then imported as a zip. */}
              <input
                ref={folderInput}
                type="file"
                hidden
                data-testid="package-folder"
                {...{ webkitdirectory: '', directory: '' }}
                onChange={(event) => void importFolder(event.currentTarget.files)}
              />
              <Button variant="light" loading={importing} onClick={() => folderInput.current?.click()}>
                Import a folder
              </Button>
            </Group>
          </Group>
          {imported && (
            <Alert color="green" role="status">
              {imported}
            </Alert>
          )}
          {importError && (
            <Alert color="red" role="alert" title="The package was not imported">
              {importError.message}
            </Alert>
          )}
          {deletePackage.error && (
            <Alert color="red" role="alert">
              {deletePackage.error.message}
            </Alert>
          )}
          {packages.error ? (
            <ErrorState title="The packages could not be loaded" error={packages.error} onRetry={packages.reload} />
          ) : packages.loading ? (
            <LoadingState label="Loading packages…" />
          ) : (packages.data?.packages.length ?? 0) === 0 ? (
            <Text c="dimmed" size="sm">
              Publish your course as xAPI (Tin Can) or cmi5 from Storyline, Rise, Captivate, iSpring, Lectora or Adapt, and import the zip here.
            </Text>
          ) : (
            <DataTable data={packages.data!.packages} columns={packageColumns} caption="Packages" rowKey={(row) => row.id} rowProps={(row) => ({ 'data-package': row.title })} />
          )}
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={4}>Attempts</Title>
            {confirmReset ? (
              <Group gap="xs">
                <Text size="sm">Delete every statement, document and attempt of this test Store? Packages and keys stay.</Text>
                <Button
                  size="xs"
                  color="red"
                  loading={emptyStore.pending}
                  onClick={() =>
                    void emptyStore.run({ slug }).then(() => {
                      setConfirmReset(false);
                      attempts.reload();
                    }, () => undefined)
                  }
                >
                  Reset
                </Button>
                <Button size="xs" variant="default" onClick={() => setConfirmReset(false)}>
                  Cancel
                </Button>
              </Group>
            ) : (
              <Button size="xs" variant="subtle" color="red" onClick={() => setConfirmReset(true)}>
                Reset this test Store
              </Button>
            )}
          </Group>
          {emptyStore.error && (
            <Alert color="red" role="alert">
              {emptyStore.error.message}
            </Alert>
          )}
          {attempts.error ? (
            <ErrorState title="The attempts could not be loaded" error={attempts.error} onRetry={attempts.reload} />
          ) : (attempts.data?.attempts.length ?? 0) === 0 ? (
            <Text c="dimmed" size="sm">
              No attempt yet: launch a package above.
            </Text>
          ) : (
            <DataTable data={attempts.data!.attempts} columns={attemptColumns} caption="Attempts" rowKey={(row) => row.registration} />
          )}
        </Stack>
      </Paper>
      {launching && (
        <LaunchDialog
          slug={slug}
          pkg={launching}
          onClose={() => setLaunching(null)}
          onLaunched={(registration) => {
            setLaunching(null);
            onOpenAttempt(registration);
          }}
        />
      )}
    </Stack>
  );
}
