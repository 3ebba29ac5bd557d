/**
 * Builds the real app over real storage, for `app.inject` tests: sql.js in a temp directory, or with
 * LORE_TEST_STORAGE=postgres a fresh database on the tests' PostgreSQL (test/postgres/test-database.ts),
 * so that the HTTP suites answer alike on both backends (vitest.config.ts runs them on each).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import { z } from 'zod';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { adminOperations, type AdminOperationName } from '../../src-server/admin/contract';
import { buildServer, type ServerOptions } from '../../src-server/http/build-server';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { Storage } from '../../src-server/storage/storage';
import { createTestDatabase } from '../postgres/test-database';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const PUBLIC_URL = 'http://127.0.0.1:8411';

export interface CreatedKey {
  id: string;
  secret: string;
  token: string;
  basic: string;
}

export interface TestApp {
  app: FastifyInstance;
  storage: Storage;
  dataDir: string;
  /** The same data opened once more, as by a restarted service; `close` closes it too. */
  reopenStorage(): Promise<Storage>;
  admin(options: InjectOptions): Promise<LightMyRequestResponse>;
  createStore(slug: string, environment?: 'test' | 'live'): Promise<void>;
  createKey(slug: string, body?: Record<string, unknown>): Promise<CreatedKey>;
  /** An xAPI request with version header and the key's Basic credentials. */
  xapi(key: CreatedKey, options: InjectOptions & { version?: string | null }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

type TestStorageKind = 'sqljs' | 'postgres';

/** The backend named by LORE_TEST_STORAGE (default sql.js); anything else is a mistake, not a fallback. */
function testStorageKind(): TestStorageKind {
  const value = process.env['LORE_TEST_STORAGE'] ?? 'sqljs';
  if (value === 'sqljs' || value === 'postgres') return value;
  throw new Error(`LORE_TEST_STORAGE must be "sqljs" or "postgres", not "${value}"`);
}

/** A test's storage, on the backend LORE_TEST_STORAGE names. */
export interface TestStorage {
  storage: Storage;
  /** The same data opened once more, as by a restarted service (close the first one before). */
  reopen(): Promise<Storage>;
  /** Closes every storage opened here and removes what it kept outside the data directory (the database). */
  release(): Promise<void>;
}

/**
 * `kind`: this backend whatever LORE_TEST_STORAGE says; `tablespace` (PostgreSQL): the database's
 * files kept in that tablespace (test/storage/postgres-disk-full.test.ts puts one on a small disk).
 */
export interface TestStorageOptions {
  kind?: TestStorageKind;
  tablespace?: string;
}

export async function openTestStorage(dataDir: string, options: TestStorageOptions = {}): Promise<TestStorage> {
  const opened: Storage[] = [];
  const track = async (opening: Promise<Storage>): Promise<Storage> => {
    const storage = await opening;
    opened.push(storage);
    return storage;
  };
  const closeAll = async (): Promise<void> => {
    for (const storage of opened) await storage.close(); // closing twice is a no-op on both backends
  };
  if ((options.kind ?? testStorageKind()) === 'sqljs') {
    return { storage: await track(openSqljsStorage({ dataDir })), reopen: () => track(openSqljsStorage({ dataDir })), release: closeAll };
  }
  const database = await createTestDatabase({ migrated: true, ...(options.tablespace ? { tablespace: options.tablespace } : {}) });
  const open = () => track(openPostgresStorage({ url: database.url, poolSize: 4 }));
  try {
    return {
      storage: await open(),
      reopen: open,
      async release() {
        try {
          await closeAll();
        } finally {
          await database.drop();
        }
      },
    };
  } catch (err) {
    await database.drop();
    throw err;
  }
}

/**
 * `limits`: service limits other than the defaults (test/http/limits-*.test.ts); `publicUrl`: default
 * PUBLIC_URL; `followRequestOrigin`, `trustProxy`, `serviceInfo`: a service without --public-url,
 * behind proxies, bound beyond loopback (test/http/public-url-from-request.test.ts). `storage`:
 * which storage the app gets (openTestStorage), when not LORE_TEST_STORAGE's default.
 */
export async function buildTestApp(
  options: Partial<Pick<ServerOptions, 'limits' | 'publicUrl' | 'followRequestOrigin' | 'trustProxy' | 'serviceInfo' | 'importPageSize'>> = {},
  storageOptions: TestStorageOptions = {},
): Promise<TestApp> {
  // A temp directory on either backend: the admin token file is kept there.
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-http-'));
  const { storage, reopen, release } = await openTestStorage(dataDir, storageOptions);
  const app = buildServer({
    storage,
    adminToken: resolveAdminToken(dataDir, ADMIN_TOKEN).check,
    ...options,
    publicUrl: options.publicUrl ?? (() => PUBLIC_URL),
  });
  await app.ready();

  const admin: TestApp['admin'] = async (options) => {
    const response = await app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers } });
    checkAgainstContract(options.method ?? 'GET', typeof options.url === 'string' ? options.url : '', response);
    return response;
  };

  return {
    app,
    storage,
    dataDir,
    reopenStorage: reopen,
    admin,
    async createStore(slug, environment = 'test') {
      const response = await admin({ method: 'POST', url: '/admin/api/stores', payload: { slug, name: `Store ${slug}`, environment } });
      if (response.statusCode !== 201) throw new Error(`createStore: ${response.statusCode} ${response.body}`);
    },
    async createKey(slug, body = { name: 'test key' }) {
      const response = await admin({ method: 'POST', url: `/admin/api/stores/${slug}/keys`, payload: body });
      if (response.statusCode !== 201) throw new Error(`createKey: ${response.statusCode} ${response.body}`);
      return response.json() as CreatedKey;
    },
    xapi(key, options) {
      const { version = '1.0.3', ...rest } = options;
      const headers: Record<string, string> = { authorization: `Basic ${key.basic}` };
      if (version !== null) headers['x-experience-api-version'] = version;
      return app.inject({ ...rest, headers: { ...headers, ...(rest.headers as Record<string, string>) } });
    },
    async close() {
      await app.close();
      await release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The admin operation of the contract a request names (its method and path below /admin/api), or null. */
export function adminOperationFor(method: string, url: string): AdminOperationName | null {
  const path = new URL(url, 'http://service').pathname;
  if (!path.startsWith('/admin/api/')) return null;
  const below = path.slice('/admin/api'.length);
  for (const [name, operation] of Object.entries(adminOperations)) {
    if (operation.method !== method.toUpperCase()) continue;
    if (new RegExp(`^${operation.path.replace(/:\w+/g, '[^/]+')}$`).test(below)) return name as AdminOperationName;
  }
  return null;
}

/**
 * Every successful answer of an admin operation that a test asks for through `admin` is checked
 * against the contract's output schema (admin/contract.ts): the console reads it as that type, so
 * an answer that drifted from it fails here, on both backends, rather than in a user's console.
 */
export function checkAgainstContract(method: string, url: string, response: Pick<LightMyRequestResponse, 'statusCode' | 'body'>): void {
  if (response.statusCode < 200 || response.statusCode >= 300) return;
  const name = adminOperationFor(method, url);
  if (name === null) return;
  const body: unknown = response.body === '' ? undefined : JSON.parse(response.body);
  const result = adminOperations[name].output.safeParse(body);
  if (!result.success) throw new Error(`${method} ${url} (${name}): the answer does not match the contract's output schema:\n${z.prettifyError(result.error)}`);
}

/**
 * Registers beforeEach/afterEach hooks that build a fresh app with a `demo` Store and a key on it
 * (created with `keyBody`), and closes it after each test. Read `t` and `key` inside hooks and tests.
 */
export function useDemoStore(keyBody?: Record<string, unknown>): { readonly t: TestApp; readonly key: CreatedKey } {
  let t: TestApp | undefined;
  let key: CreatedKey | undefined;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.createStore('demo');
    key = await t.createKey('demo', keyBody);
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    key = undefined;
  });
  return {
    get t() {
      if (!t) throw new Error('useDemoStore: the app is only there inside a test');
      return t;
    },
    get key() {
      if (!key) throw new Error('useDemoStore: the key is only there inside a test');
      return key;
    },
  };
}

export function statement(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    actor: { objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: 'http://example.com/courses/module-1' },
    ...overrides,
  };
}
