/** @xapi/xapi (npm), used unchanged against a real Lore service. */
import XAPI, { type StatementsResponse } from '@xapi/xapi';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceWithKey, type ServiceWithKey } from './running-service';

let lore: ServiceWithKey;
let xapi: XAPI;

const actor = { objectType: 'Agent' as const, name: 'Ada', mbox: 'mailto:ada@example.com' as const };
const completed = { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } };

beforeAll(async () => {
  lore = await startServiceWithKey();
  xapi = new XAPI({ endpoint: lore.endpoint, auth: XAPI.toBasicAuth(lore.keyId, lore.secret), adapter: 'fetch' });
});
afterAll(() => lore.close());

describe('@xapi/xapi against Lore', () => {
  it('reads /about', async () => {
    const about = await xapi.getAbout();
    expect(about.data.version).toContain('1.0.3');
  });

  it('sends a statement and reads it back by id', async () => {
    const sent = await xapi.sendStatement({
      statement: { actor, verb: completed, object: { objectType: 'Activity', id: 'http://example.com/courses/xapi-js' } },
    });
    const id = sent.data[0]!;
    const read = await xapi.getStatement({ statementId: id });
    expect(read.data.id).toBe(id);
    expect(read.data.verb.id).toBe(completed.id);
  });

  it('sends a batch, queries it by activity and pages with more', async () => {
    const activity = `http://example.com/courses/${randomUUID()}`;
    const statements = Array.from({ length: 5 }, () => ({ actor, verb: completed, object: { objectType: 'Activity' as const, id: activity } }));
    const sent = await xapi.sendStatements({ statements });
    expect(sent.data).toHaveLength(5);
    const first = await xapi.getStatements({ activity, limit: 3 });
    expect(first.data.statements).toHaveLength(3);
    expect(first.data.more).toBeTruthy();
    // Without attachments the library answers a plain StatementResult.
    const second = (await xapi.getMoreStatements({ more: first.data.more! })).data as StatementsResponse;
    expect(second.statements).toHaveLength(2);
    const ids = [...first.data.statements, ...second.statements].map((s) => s.id).sort();
    expect(ids).toEqual([...sent.data].sort());
  });

  it('voids a statement, which then hides it from queries', async () => {
    const activity = `http://example.com/courses/${randomUUID()}`;
    const [id] = (await xapi.sendStatement({ statement: { actor, verb: completed, object: { objectType: 'Activity', id: activity } } })).data;
    await xapi.voidStatement({ actor, statementId: id! });
    const voided = await xapi.getVoidedStatement({ voidedStatementId: id! });
    expect(voided.data.id).toBe(id);
    const listed = await xapi.getStatements({ activity });
    expect(listed.data.statements.map((s) => s.id)).not.toContain(id);
  });

  it('surfaces a rejection as an error carrying the field at fault', async () => {
    const error = await xapi
      .sendStatement({ statement: { actor: { mbox: 'ada@example.com' } as never, verb: completed, object: { id: 'http://example.com/x' } } })
      .then(() => null, (e: unknown) => e);
    expect(error).not.toBeNull();
    const body = JSON.stringify((error as { data?: unknown; response?: { data?: unknown } }).data ?? (error as { response?: { data?: unknown } }).response?.data ?? String(error));
    expect(body).toContain('actor.mbox');
  });
});
