/** A real listening service in this process (port 0, temp data dir) for client-library tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../../src-server/service/service';

const ADMIN_TOKEN = 'client-test-admin-token-0123456789';

export interface ServiceWithKey {
  service: RunningService;
  endpoint: string;
  keyId: string;
  secret: string;
  close(): Promise<void>;
}

export async function startServiceWithKey(slug = 'clients'): Promise<ServiceWithKey> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-clients-'));
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN });
  const admin = (path: string, body: unknown) =>
    fetch(`${service.url}/admin/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await admin('/stores', { slug, name: 'Client libraries' });
  const key = (await (await admin(`/stores/${slug}/keys`, { name: 'client library' })).json()) as { id: string; secret: string };
  return {
    service,
    endpoint: `${service.url}/${slug}/xAPI/`,
    keyId: key.id,
    secret: key.secret,
    close: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
