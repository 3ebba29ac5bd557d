/**
 * `npm run bench:erasure -- [--statements 100000] [--learners 1000]`
 *
 * What forgetting a learner and a retention step cost on the embedded storage, where they run on
 * the service's thread: a Store of `--statements` statements spread over `--learners` learners
 * (each statement names its learner as actor and another as instructor, so related terms count
 * too), with rejected entries; then the dry run, the erasure of one learner, and retention steps
 * of 1,000 statements each, timed. The longest of them is the longest any request would wait.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RETENTION_STEP_ROWS } from '../../src-server/storage/erasure';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { RejectionRow, StatementRow } from '../../src-server/storage/storage';
import { extractIndexTerms } from '../../src-server/xapi/index-terms';
import type { Statement } from '../../src-server/xapi/statement-schema';

const { values } = parseArgs({ options: { statements: { type: 'string', default: '100000' }, learners: { type: 'string', default: '1000' } } });
const total = Number(values.statements);
const learners = Number(values.learners);
const BASE = Date.parse('2025-01-01T00:00:00.000Z');
const learner = (i: number) => ({ mbox: `mailto:learner${i}@example.com`, name: `Learner ${i}` });

function row(i: number): StatementRow {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const stored = new Date(BASE + i * 1000).toISOString();
  const statement = {
    id,
    actor: learner(i % learners),
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/course/${i % 50}` },
    context: { instructor: learner((i + 1) % learners) },
    authority: { objectType: 'Agent', account: { homePage: 'https://lore.example', name: 'key' } },
    stored,
    timestamp: stored,
    version: '1.0.3',
  };
  const index = extractIndexTerms(statement as unknown as Statement);
  return { statementId: id, statement, signature: id, stored, keyId: 'key', verbId: index.verbId, registration: null, voidsStatementId: null, targetStatementId: null, terms: index.terms };
}

function rejection(i: number): RejectionRow {
  return {
    receivedAt: new Date(BASE + i * 1000).toISOString(),
    keyId: 'key',
    statementId: null,
    payload: { actor: { mbox: `learner${i % learners}@example.com` }, verb: { id: 'x' } },
    error: { code: 'invalid_statement', message: 'actor.mbox must start with mailto:', field: 'actor.mbox' },
    agent: `mbox:mailto:learner${i % learners}@example.com`,
    verbId: 'x',
    activityId: null,
  };
}

/** The longest gap between ticks of a 1 ms timer while watched: how long a request could be held. */
function watchLoop(): () => number {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return () => {
    clearInterval(timer);
    return Math.max(longest, performance.now() - last);
  };
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'lore-bench-erasure-'));
try {
  const storage = await openSqljsStorage({ dataDir: dir });
  const storeId = 'bench';
  await storage.insertStore({ id: storeId, slug: 'bench', name: 'Bench', environment: 'test', createdAt: new Date(BASE).toISOString(), updatedAt: new Date(BASE).toISOString() });
  for (let i = 0; i < total; i += 1000) await storage.insertStatements(storeId, Array.from({ length: Math.min(1000, total - i) }, (_, k) => row(i + k)));
  await storage.insertRejections(storeId, Array.from({ length: 5000 }, (_, i) => rejection(i)));
  // The event loop's longest wait while each runs: how long a request could be held.
  const timed = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
    const stop = watchLoop();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const started = performance.now();
    const result = await work();
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 5));
    console.log(`${label}: ${elapsed.toFixed(1)} ms, event loop held at most ${stop().toFixed(1)} ms`);
    return result;
  };
  const keys = ['mbox:mailto:learner7@example.com'];
  const at = new Date().toISOString();
  const dry = await timed('dry run', () => storage.eraseAgents(storeId, { keys, dryRun: true, at }));
  console.log(`  would erase ${dry.counts.statements} statements, ${dry.counts.rejections} rejected entries`);
  await timed('erasure (check, write, fsync)', () => storage.eraseAgents(storeId, { keys, dryRun: false, at }));
  const cutoffs = { statementsBeforeMs: BASE + (total / 2) * 1000, rejectionsBeforeMs: null, refusalsBeforeMs: null };
  const steps: number[] = [];
  const stop = watchLoop();
  for (;;) {
    const started = performance.now();
    const step = await storage.retentionStep(storeId, cutoffs);
    if (step.statements === 0) break;
    steps.push(performance.now() - started);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const held = stop();
  steps.sort((a, b) => a - b);
  console.log(
    `retention: ${steps.length} steps of up to ${RETENTION_STEP_ROWS} statements; median ${steps[steps.length >> 1]?.toFixed(1)} ms, longest ${steps.at(-1)?.toFixed(1)} ms (with the fsync); event loop held at most ${held.toFixed(1)} ms`,
  );
  await storage.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
