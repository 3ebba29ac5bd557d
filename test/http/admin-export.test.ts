/**
 * GET /admin/api/stores/:slug/export: what an Explorer filter shows, as NDJSON (the statements as
 * GET /statements answers them, one a line) and as CSV read back by an RFC 4180 parser; streamed
 * from a listening service, a page read only when the client has taken the one before.
 */
import { describe, expect, it } from 'vitest';
import { EXPORT_PAGE, exportStream } from '../../src-server/admin/statement-export';
import type { Storage } from '../../src-server/storage/storage';
import { ADMIN_TOKEN, useDemoStore } from './test-app';

const ctx = useDemoStore();

const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const ATTEMPTED = 'http://adlnet.gov/expapi/verbs/attempted';
const COURSE = 'http://example.com/course/1';

/** RFC 4180: fields split by commas, records by CRLF; a quoted field may hold both, its quotes doubled. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' && field === '') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) throw new Error('unterminated quoted field');
        field += text.slice(i, q);
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else if (c === '\n' || c === '"') {
      throw new Error(`a bare ${JSON.stringify(c)} at ${i}: not RFC 4180`);
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length > 0) throw new Error('the last record has no CRLF');
  return rows;
}

function statement(i: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    actor: { name: `Learner ${i}`, mbox: `mailto:learner${i}@example.com` },
    verb: { id: i % 2 === 0 ? COMPLETED : ATTEMPTED, display: { 'en-US': i % 2 === 0 ? 'completed' : 'attempted' } },
    object: { id: `${COURSE}/${i}`, definition: { name: { 'en-US': `Module ${i}` } } },
    result: { success: i % 3 === 0, completion: true, score: { scaled: 0.5, raw: i }, duration: 'PT1M' },
    ...extra,
  };
}

async function send(bodies: Array<Record<string, unknown>>): Promise<string[]> {
  const ids: string[] = [];
  for (let at = 0; at < bodies.length; at += 250) {
    const response = await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: bodies.slice(at, at + 250) });
    expect(response.statusCode, response.body).toBe(200);
    ids.push(...(response.json() as string[]));
  }
  return ids;
}

async function exported(query: string) {
  return ctx.t.admin({ method: 'GET', url: `/admin/api/stores/demo/export?${query}` });
}

/** Every statement of the Store as GET /statements answers it, by id. */
async function statementsAsGetAnswers(): Promise<Map<string, unknown>> {
  const byId = new Map<string, unknown>();
  let url: string | null = '/demo/xAPI/statements?limit=500';
  while (url) {
    const response = await ctx.t.xapi(ctx.key, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json() as { statements: Array<{ id: string }>; more?: string };
    for (const s of page.statements) byId.set(s.id, s);
    url = page.more ? page.more.replace(/^\/xAPI/, '/demo/xAPI') : null;
  }
  return byId;
}

describe('the export of a Store', () => {
  it('as NDJSON: every statement as GET answers it, one a line, oldest first (the Store\'s order), across pages', async () => {
    const ids = await send(Array.from({ length: EXPORT_PAGE + 20 }, (_, i) => statement(i)));
    const voiding = await send([{ actor: { mbox: 'mailto:admin@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: ids[0] } }]);
    const response = await exported('format=ndjson');
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="demo-statements-[0-9TZ-]+\.ndjson"$/);
    expect(response.body.endsWith('\n')).toBe(true);
    const lines = response.body.slice(0, -1).split('\n').map((line) => JSON.parse(line) as { id: string });
    expect(lines.map((s) => s.id)).toEqual([...ids, ...voiding]);

    const answers = await statementsAsGetAnswers();
    const voided = await ctx.t.xapi(ctx.key, { method: 'GET', url: `/demo/xAPI/statements?voidedStatementId=${ids[0]}` });
    answers.set(ids[0]!, voided.json());
    for (const line of lines) expect(line).toEqual(answers.get(line.id));
  });

  it('as CSV: one row per record a CSV parser reads, with the status; rejected ones included, formulas disarmed', async () => {
    const tricky = statement(1, { actor: { name: '=HYPERLINK("http://evil.example","click"), "quoted"\r\nnext line', mbox: 'mailto:tricky@example.com' } });
    const [plainId, trickyId] = await send([statement(2), tricky]);
    const rejected = await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: { actor: { name: '@SUM(A1)' }, verb: { id: 'not an iri' }, object: { id: COURSE } } });
    expect(rejected.statusCode).toBe(400);

    const response = await exported('format=csv');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/csv; charset=utf-8/);
    const [header, ...rows] = parseCsv(response.body);
    expect(header).toEqual([
      'status', 'stored', 'timestamp', 'actor_name', 'actor_ifi', 'verb_id', 'verb_display', 'object_id', 'object_name',
      'result_success', 'result_completion', 'result_score_scaled', 'result_score_raw', 'result_duration', 'registration', 'statement_id', 'error',
    ]);
    expect(rows).toHaveLength(3);
    const cell = (row: string[], name: string) => row[header!.indexOf(name)];
    const [plainRow, trickyRow, rejectedRow] = rows as [string[], string[], string[]];
    expect(cell(rejectedRow, 'status')).toBe('rejected');
    expect(cell(rejectedRow, 'actor_name')).toBe("'@SUM(A1)");
    expect(cell(rejectedRow, 'error')).toMatch(/^invalid_statement: /);
    expect(cell(trickyRow, 'statement_id')).toBe(trickyId);
    expect(cell(trickyRow, 'actor_name')).toBe('\'=HYPERLINK("http://evil.example","click"), "quoted"\r\nnext line');
    const stored = (await ctx.t.xapi(ctx.key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${plainId}` })).json() as Record<string, string>;
    expect(plainRow).toEqual([
      'accepted', stored.stored, stored.timestamp, 'Learner 2', 'mailto:learner2@example.com', COMPLETED, 'completed', `${COURSE}/2`, 'Module 2',
      'false', 'true', '0.5', '2', 'PT1M', '', plainId, '',
    ]);
  });

  it("exports what the Explorer's filters show, and answers 400 naming the field it cannot read", async () => {
    const ids = await send(Array.from({ length: 6 }, (_, i) => statement(i)));
    const completed = await exported(`format=ndjson&verb=completed&activity=${encodeURIComponent(`${COURSE}/2`)}`);
    expect(completed.body.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([ids[2]]);
    const learner = await exported('format=csv&agent=learner4@example.com');
    expect(parseCsv(learner.body).slice(1).map((row) => row[15])).toEqual([ids[4]]);
    expect((await exported('format=ndjson&agent=nobody@example.com')).body).toBe('');

    for (const [query, field] of [
      ['format=xml', 'format'],
      ['', 'format'],
      ['format=csv&since=yesterday', 'since'],
      ['format=ndjson&status=rejected', 'status'],
      ['format=csv&verb=%20', 'verb'],
    ] as const) {
      const response = await exported(query);
      expect(response.statusCode, query).toBe(400);
      expect((response.json() as { error: { field: string } }).error.field, query).toBe(field);
    }
    const unknown = await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/nowhere/export?format=csv' });
    expect(unknown.statusCode).toBe(404);
  });

  it('streams over a socket, chunked: no length known in advance, every line arrives', async () => {
    await send(Array.from({ length: 300 }, (_, i) => statement(i)));
    await ctx.t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = ctx.t.app.server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${address.port}/admin/api/stores/demo/export?format=ndjson`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    const text = await response.text();
    expect(text.trim().split('\n')).toHaveLength(300);
  });

  it('reads the next page only when the reader has taken the last: a reader that stops holds one page', async () => {
    // A first pass notes where each page begins (4 reads of 50, nothing kept but their bounds);
    // the second reads them again from the oldest, one as the reader takes the last.
    const page = 50;
    await send(Array.from({ length: 4 * page }, (_, i) => statement(i)));
    const reads = countPageReads(ctx.t.storage);
    const store = (await ctx.t.storage.findStoreBySlug('demo'))!;
    const stream = exportStream(ctx.t.storage, store, {}, 'ndjson', undefined, page);
    const first = await new Promise<string>((resolve) => stream.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    stream.pause();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(first.trim().split('\n')).toHaveLength(page);
    expect(reads.count).toBeLessThanOrEqual(4 + 2);
    let rest = 0;
    stream.on('data', (chunk: Buffer) => (rest += chunk.toString('utf8').trim().split('\n').length));
    stream.resume();
    await new Promise((resolve) => stream.once('end', resolve));
    expect(rest).toBe(3 * page);
    expect(reads.count).toBe(4 + 4);
  });
});

/** Counts the storage's Explorer reads from now on (the real storage answers them). */
function countPageReads(storage: Storage): { readonly count: number } {
  const counter = { count: 0 };
  const search = storage.searchExplorer.bind(storage);
  storage.searchExplorer = (storeId, query) => {
    counter.count++;
    return search(storeId, query);
  };
  return counter;
}
