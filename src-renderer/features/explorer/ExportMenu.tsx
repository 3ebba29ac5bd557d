import { Button, Menu, Text } from '@mantine/core';
import { useState } from 'react';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { ErrorState } from '../../ui/StateViews';
import { exportQuery, type ExplorerFilters } from './explorer-url';

/**
 * "Export": every record the current filter shows, not only the page on screen, as a file: NDJSON
 * (the statements as stored, what an import reads back) or CSV (a row per record, rejected ones
 * too, for a spreadsheet). A download in the web console, a save dialog in the desktop app.
 */
export function ExportMenu({ store, search }: { store: string; search: ExplorerFilters }) {
  const client = useAdminClient();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string>();
  const [error, setError] = useState<AdminError>();

  async function save(format: 'ndjson' | 'csv') {
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    try {
      const result = await client.saveExport(store, exportQuery(format, search));
      if (result.saved) setSaved(result.name);
    } catch (caught) {
      setError(toAdminError(caught));
    } finally {
      setBusy(false);
    }
  }

  // A rejected entry is no statement: only CSV shows rejected ones.
  const onlyRejected = search.status === 'rejected';
  return (
    <div>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button variant="default" loading={busy} data-testid="export-menu">
            Export
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Label>What this filter shows, every page</Menu.Label>
          <Menu.Item onClick={() => void save('csv')} data-testid="export-csv">
            CSV (a row per record, with its status)
          </Menu.Item>
          <Menu.Item onClick={() => void save('ndjson')} disabled={onlyRejected} data-testid="export-ndjson">
            NDJSON (the statements as stored)
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {saved && (
        <Text size="sm" c="teal" mt={4} role="status">
          Export saved: {saved}
        </Text>
      )}
      {error && <ErrorState title="The export failed" error={error} onRetry={() => setError(undefined)} />}
    </div>
  );
}
