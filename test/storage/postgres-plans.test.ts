/**
 * Every query shape of GET /statements and of the Explorer is served by an index on PostgreSQL:
 * over a few thousand rows (analyzed, so the planner knows the sizes), each plan reads its table
 * through an index, never a sequential scan, and never sorts the rows it found.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { explorerRejectionQuery, explorerStatementQuery, statementPageQuery, statementQuery, targetingStatementQuery } from '../../src-server/storage/postgres/statement-queries';
import type { BuiltQuery } from '../../src-server/storage/postgres/statement-queries';
import { lookupNamesQuery, matchNamesQuery } from '../../src-server/storage/postgres/explorer-names';
import type { ExplorerQuery, NameQuery, StatementQuery } from '../../src-server/storage/storage';
import { createTestDatabase } from '../postgres/test-database';
import type { TestDatabase } from '../postgres/test-database';
import { ALICE, BOB, COMPLETED, ATTEMPTED, COURSE, MODULE, at, makeRejection, makeStatement, makeStore } from './rows';

const REGISTRATION = '11111111-2222-4333-8444-555555555555';

let db: TestDatabase;
let storage: PostgresStorage;
let client: pg.Client;
let storeNum: number;
let namedStoreNum: number;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** `generic`: the plan made for any values, which a prepared statement may settle on (database.ts, `prepared`). */
async function plan(query: BuiltQuery, generic = false): Promise<PlanNode[]> {
  const { rows } = generic
    ? await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${query.text}`)
    : await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${query.text}`, query.values);
  return nodes(rows[0]!['QUERY PLAN'][0]!.Plan);
}

/** A plan's nodes one to a line, with their tables and indexes: what a failed expectation shows. */
function describePlan(all: PlanNode[]): string {
  return all.map((n) => `${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`).join('\n');
}

const BIG_TABLES = ['statements', 'term_postings', 'rejections'];

/**
 * `index`: the index a selective filter must be read through (null: any index will do). `sorts`:
 * a merge of several values sorts what it read of each (a page at most), never a table's rows.
 */
async function expectIndexed(query: BuiltQuery, index: string | null = null, sorts: 'none' | 'pages' = 'none', prepared = true): Promise<void> {
  // The plan for these values, and for a prepared statement the one for any values, which it may settle on.
  for (const generic of prepared ? [false, true] : [false]) await expectPlanIndexed(await plan(query, generic), index, sorts);
}

async function expectPlanIndexed(all: PlanNode[], index: string | null, sorts: 'none' | 'pages'): Promise<void> {
  const described = describePlan(all);
  const seqScans = all.filter((n) => n['Node Type'] === 'Seq Scan' && BIG_TABLES.includes(n['Relation Name'] ?? ''));
  expect(seqScans, described).toEqual([]);
  if (sorts === 'none') expect(all.filter((n) => n['Node Type'] === 'Sort'), described).toEqual([]);
  else expect(described).toMatch(/Nested Loop[\s\S]*Limit/);
  expect(all.some((n) => /Index/.test(n['Node Type'])), described).toBe(true);
  if (index !== null) expect(all.map((n) => n['Index Name']), described).toContain(index);
}

beforeAll(async () => {
  db = await createTestDatabase();
  storage = await openPostgresStorage({ url: db.url, poolSize: 4 });
  const store = makeStore();
  await storage.insertStore(store);
  // A second Store, so that a Store's rows are a part of each table.
  const other = makeStore();
  await storage.insertStore(other);
  for (const target of [store, other]) {
    let previous = '';
    for (let batch = 0; batch < 20; batch++) {
      const rows = Array.from({ length: 100 }, (_, i) => {
        const n = batch * 100 + i;
        if (n % 50 === 49) {
          // Now and then a statement voiding the one before it (a StatementRef target).
          const voiding = makeStatement({ voids: previous, storedAt: n });
          return { ...voiding, targetStatementId: previous };
        }
        const row = makeStatement({
          actor: n % 7 === 0 ? BOB : `mbox:mailto:learner${n % 300}@example.com`,
          verb: n % 5 === 0 ? COMPLETED : n % 5 === 1 ? ATTEMPTED : `http://example.com/verbs/v${n % 40}`,
          activity: n % 11 === 0 ? COURSE : `http://example.com/activity/${n % 500}`,
          registration: n % 97 === 0 ? REGISTRATION : null,
          storedAt: n,
        });
        previous = row.statementId;
        return n % 13 === 0 ? { ...row, warnings: [{ field: 'timestamp', message: 'no time zone' }] } : row;
      });
      const result = await storage.insertStatements(target.id, rows);
      expect(result.ok).toBe(true);
    }
    await storage.insertRejections(target.id, Array.from({ length: 500 }, (_, i) => makeRejection({ receivedAt: i })));
  }
  // 3,000 learners with names of their own in a Store of their own, for the Explorer's name lookups.
  const named = makeStore();
  await storage.insertStore(named);
  for (let batch = 0; batch < 30; batch++) {
    const rows = Array.from({ length: 100 }, (_, i) => {
      const n = batch * 100 + i;
      return makeStatement({ actor: `mbox:mailto:named${n}@example.com`, actorName: `Learner${n} Surname${n}`, storedAt: n });
    });
    expect((await storage.insertStatements(named.id, rows)).ok).toBe(true);
  }
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('ANALYZE');
  const { rows } = await client.query<{ num: number }>('SELECT num FROM stores WHERE id = $1', [store.id]);
  storeNum = rows[0]!.num;
  namedStoreNum = (await client.query<{ num: number }>('SELECT num FROM stores WHERE id = $1', [named.id])).rows[0]!.num;
}, 120_000);

afterAll(async () => {
  await client?.end();
  await storage?.close();
  await db?.drop();
});

// [name, query, the index a selective filter must use (null: any)]
const STATEMENT_SHAPES: Array<[string, Omit<StatementQuery, 'limit'>, string | null]> = [
  ['no filter, newest first', {}, 'statements_pkey'],
  ['no filter, ascending', { ascending: true }, 'statements_pkey'],
  ['a page further (more)', { afterSeq: 2500, maxSeq: 4000 }, 'statements_pkey'],
  ['agent', { agent: ALICE }, 'term_postings_primary'],
  ['agent, related', { agent: BOB, relatedAgents: true }, 'term_postings_pkey'],
  ['activity', { activityId: COURSE }, 'term_postings_primary'],
  ['activity, related', { activityId: MODULE, relatedActivities: true }, 'term_postings_pkey'],
  ['verb', { verbId: COMPLETED }, null],
  ['registration', { registration: REGISTRATION }, 'statements_registration'],
  ['agent and verb', { agent: BOB, verbId: COMPLETED }, null],
  ['agent and activity', { agent: BOB, activityId: COURSE }, null],
  ['since and until', { since: at(100), until: at(900) }, null],
  ['verb, since, ascending', { verbId: ATTEMPTED, since: at(100), ascending: true }, null],
  ["a key's own", { keyId: 'lore_test_somekey' }, 'statements_key'],
];

const EXPLORER_SHAPES: Array<[string, Omit<ExplorerQuery, 'limit'>, string | null]> = [
  ['everything', {}, 'statements_pkey'],
  ['accepted', { status: 'accepted' }, null],
  ['voided', { status: 'voided' }, 'statements_voided'],
  ['rejected', { status: 'rejected' }, null],
  ['agent', { agent: BOB }, 'term_postings_pkey'],
  ['activity', { activityId: COURSE }, 'term_postings_pkey'],
  ['verb', { verbId: COMPLETED }, null],
  ['registration', { registration: REGISTRATION }, 'statements_registration'],
  ['with warnings', { warned: true }, 'statements_warned'],
  ['a time range', { since: at(100), until: at(200) }, null],
  ['an older page', { beforeSeq: 1000 }, null],
];

/** Filters of several values (a name that matched several): a merge, per value through its index. */
const MERGED_EXPLORER_SHAPES: Array<[string, Omit<ExplorerQuery, 'limit'>, string]> = [
  ['several agents', { agent: [ALICE, BOB, 'mbox:mailto:learner7@example.com'] }, 'term_postings_pkey'],
  ['several activities, one verb', { activityId: [COURSE, MODULE], verbId: COMPLETED }, 'term_postings_pkey'],
  ['several verbs', { verbId: [COMPLETED, ATTEMPTED] }, 'statements_verb'],
  ['several agents, an older page', { agent: [ALICE, BOB], beforeSeq: 1000 }, 'term_postings_pkey'],
];

// The Explorer's name lookups (explorer-names.ts), prepared: [name, query].
const NAME_SHAPES: Array<[string, NameQuery]> = [
  ['a word being typed', { kind: 'agent', words: ['surname123'], limit: 10 }],
  ['a whole word, then one being typed', { kind: 'agent', words: ['surname1234', 'le'], limit: 10 }],
  ['the start of a value', { kind: 'agent', valuePrefix: 'mbox:mailto:named12', limit: 10 }],
];

/** A name lookup reads the names' tables through their primary keys, with these values and with any. */
async function expectNamesIndexed(query: BuiltQuery | null): Promise<void> {
  expect(query).not.toBeNull();
  for (const generic of [false, true]) {
    const all = await plan(query!, generic);
    const described = describePlan(all);
    expect(all.filter((n) => n['Node Type'] === 'Seq Scan'), described).toEqual([]);
    expect(all.some((n) => /_pkey$/.test(n['Index Name'] ?? '')), described).toBe(true);
  }
}

describe('PostgreSQL query plans', () => {
  for (const [name, query] of NAME_SHAPES) {
    it(`an Explorer name lookup by ${name} reads through a primary key`, async () => {
      await expectNamesIndexed(lookupNamesQuery(namedStoreNum, query));
      if ('words' in query) await expectNamesIndexed(matchNamesQuery(namedStoreNum, query));
    });
  }
  for (const [name, query, index] of STATEMENT_SHAPES) {
    it(`GET /statements by ${name} reads through an index`, async () => {
      // A key's own statements are not prepared (statement-reads.ts): a plan for any key would walk the Store.
      const prepared = query.keyId === undefined;
      await expectIndexed(statementQuery(storeNum, { limit: 51, ...query }, 51), index, 'none', prepared);
      if (query.agent || query.activityId || query.verbId || query.registration) {
        await expectIndexed(targetingStatementQuery(storeNum, { limit: 51, ...query }, 51), null, 'none', prepared);
      }
      // What is sent: both halves as one query, each through its index as when apart.
      await expectIndexed(statementPageQuery(storeNum, { limit: 51, ...query }, 51), index, 'none', prepared);
    });
  }
  for (const [name, query, index] of EXPLORER_SHAPES) {
    it(`the Explorer by ${name} reads through an index`, async () => {
      await expectIndexed(explorerStatementQuery(storeNum, { limit: 26, ...query }, 26), index);
      await expectIndexed(explorerRejectionQuery(storeNum, { limit: 26, ...query }, 26));
    });
  }
  for (const [name, query, index] of MERGED_EXPLORER_SHAPES) {
    it(`the Explorer by ${name} reads each value through an index`, async () => {
      await expectIndexed(explorerStatementQuery(storeNum, { limit: 26, ...query }, 26), index, 'pages');
    });
  }
});
