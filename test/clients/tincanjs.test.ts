/** TinCanJS (npm `tincanjs`, what many authoring tools embed), used unchanged against Lore. */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceWithKey, type ServiceWithKey } from './running-service';

// TinCanJS is CommonJS without types; this is the slice of its API the tests use.
interface TinCanResult<T> { err: unknown; xhr: { status: number; responseText: string } | null; result?: T }
interface TinCanLRS {
  saveStatement(statement: unknown, cfg: { callback: (err: unknown, xhr: TinCanResult<never>['xhr']) => void }): void;
  retrieveStatement(id: string, cfg: { callback: (err: unknown, statement: { id: string; verb: { id: string } } | null) => void }): void;
  queryStatements(cfg: { params: Record<string, unknown>; callback: (err: unknown, result: { statements: Array<{ id: string }>; more: string | null }) => void }): void;
  moreStatements(cfg: { url: string; callback: (err: unknown, result: { statements: Array<{ id: string }>; more: string | null }) => void }): void;
}
interface TinCanModule {
  LRS: new (cfg: { endpoint: string; username: string; password: string; allowFail: boolean; version?: string }) => TinCanLRS;
  Statement: new (cfg: unknown) => { id: string };
  Agent: new (cfg: unknown) => unknown;
  Activity: new (cfg: unknown) => unknown;
  DEBUG: boolean;
}
const TinCan = createRequire(import.meta.url)('tincanjs') as TinCanModule;

let lore: ServiceWithKey;
let lrs: TinCanLRS;

beforeAll(async () => {
  lore = await startServiceWithKey('tincan');
  lrs = new TinCan.LRS({ endpoint: lore.endpoint, username: lore.keyId, password: lore.secret, allowFail: false, version: '1.0.2' });
});
afterAll(() => lore.close());

function statementFor(activity: string) {
  return new TinCan.Statement({
    id: randomUUID(),
    actor: { mbox: 'mailto:ada@example.com', name: 'Ada' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    target: { id: activity },
  });
}

const save = (statement: unknown) =>
  new Promise<{ err: unknown; status: number | undefined; body: string | undefined }>((resolve) =>
    lrs.saveStatement(statement, { callback: (err, xhr) => resolve({ err, status: xhr?.status, body: xhr?.responseText }) }),
  );

describe('TinCanJS against Lore (version 1.0.2, as authoring tools send it)', () => {
  it('saves a statement and retrieves it', async () => {
    const statement = statementFor('http://example.com/tincan/one');
    const saved = await save(statement);
    expect(saved.err).toBeNull();
    expect(saved.status).toBe(204);
    const retrieved = await new Promise<{ id: string; verb: { id: string } } | null>((resolve, reject) =>
      lrs.retrieveStatement(statement.id, { callback: (err, result) => (err ? reject(err) : resolve(result)) }),
    );
    expect(retrieved?.id).toBe(statement.id);
    expect(retrieved?.verb.id).toBe('http://adlnet.gov/expapi/verbs/experienced');
  });

  it('queries by activity and follows more links', async () => {
    const activity = `http://example.com/tincan/${randomUUID()}`;
    for (let i = 0; i < 3; i++) expect((await save(statementFor(activity))).err).toBeNull();
    const query = <T>(run: (cb: (err: unknown, result: T) => void) => void) =>
      new Promise<T>((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result))));
    type Page = { statements: Array<{ id: string }>; more: string | null };
    const first = await query<Page>((callback) =>
      lrs.queryStatements({ params: { activity: new TinCan.Activity({ id: activity }), limit: 2 }, callback }),
    );
    expect(first.statements).toHaveLength(2);
    expect(first.more).toBeTruthy();
    const second = await query<Page>((callback) => lrs.moreStatements({ url: first.more!, callback }));
    expect(second.statements).toHaveLength(1);
  });

  it('reports a refused statement as an error with the reason', async () => {
    const bad = new TinCan.Statement({
      actor: { mbox: 'mailto:ada@example.com' },
      verb: { id: 'not-an-iri' },
      target: { id: 'http://example.com/tincan/bad' },
    });
    const saved = await save(bad);
    expect(saved.status).toBe(400);
    expect(saved.body).toContain('verb.id');
  });
});
