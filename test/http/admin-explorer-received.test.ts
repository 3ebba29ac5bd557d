/**
 * The Statement Explorer shows each statement as the client sent it (StatementRow.received,
 * src-server/xapi/received-statement.ts), and accepted ones also as stored, without keeping a
 * second copy of statements the LRS only added to.
 */
import { describe, expect, it } from 'vitest';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { receivedColumnsOf } from '../storage/sqljs-helpers';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

/** POSTs the body as raw JSON text, so the key order the client chose is what the LRS receives. */
async function send(body: unknown): Promise<string[]> {
  const response = await demo.t.xapi(demo.key, {
    method: 'POST',
    url: '/demo/xAPI/statements',
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as string[];
}

async function explorerRecords(): Promise<Array<{ statementId: string; status: string; statement: unknown; stored?: Record<string, unknown> }>> {
  return (await demo.t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' })).json().records;
}

/** The `received` and `lrs_added` columns of every statement, read from a snapshot of the database. */
async function receivedColumns(): Promise<Array<[unknown, unknown]>> {
  await (demo.t.storage as SqljsStorage).snapshot();
  return receivedColumnsOf(demo.t.dataDir);
}

describe('the Statement Explorer shows the JSON as received', () => {
  it('shows a statement with a single-object contextActivities value and a client authority exactly as it was sent', async () => {
    const sent = statement({
      // Key order unlike the LRS's (zod output) order, a single Activity where the LRS stores an array.
      context: { contextActivities: { parent: { id: 'http://example.com/courses' } }, platform: 'Example LMS' },
      authority: { objectType: 'Agent', mbox: 'mailto:somebody-else@example.com' },
    });
    const [id] = await send(sent);
    const [record] = await explorerRecords();
    expect(record!.statementId).toBe(id);
    expect(JSON.stringify(record!.statement)).toBe(JSON.stringify(sent));
    // As stored: normalised to an array, authority of the demo.key, LRS-set properties.
    expect(record!.stored).toMatchObject({
      id,
      context: { contextActivities: { parent: [{ id: 'http://example.com/courses' }] } },
      authority: { account: { name: demo.key.id } },
      stored: expect.any(String),
      version: '1.0.0',
    });
    expect((await receivedColumns())[0]![0]).toBe(JSON.stringify(sent));
  });

  it('gives back a plain statement exactly, from the stored statement, keeping no copy of it', async () => {
    const sent = statement({ timestamp: '2024-05-01T10:00:00.000Z' });
    const [id] = await send(sent);
    const [record] = await explorerRecords();
    expect(record!.statement).toStrictEqual(sent);
    expect(record!.stored).toMatchObject({ id, timestamp: '2024-05-01T10:00:00.000Z', stored: expect.any(String), authority: expect.any(Object) });
    const [[received, lrsAdded]] = (await receivedColumns()) as [[unknown, unknown]];
    expect(received).toBeNull();
    expect(lrsAdded).toEqual(expect.any(Number));
  });

  it('shows each statement of a batch, and a voided one, as it was sent', async () => {
    const first = statement({ id: 'aa2c9e1d-0b3f-4c6a-9d8e-7f6a5b4c3d2e' });
    const second = statement({ context: { contextActivities: { grouping: { id: 'http://example.com/programme' } } } });
    await send([first, second]);
    const voiding = statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: first.id } });
    await send(voiding);
    const records = await explorerRecords();
    expect(records.map((r) => [r.status, r.statement])).toEqual([
      ['accepted', voiding],
      ['accepted', second],
      ['voided', first],
    ]);
    expect((await receivedColumns()).map(([received]) => received !== null)).toEqual([false, true, false]);
  });
});
