/**
 * `npm run reapply-erasures -- --database-url postgres://… --from <ledger.json>`
 *
 * After a PostgreSQL database was restored from a dump taken before some erasures: applies them
 * again from a copy of the ledger kept apart from the dumps (the answer of
 * `GET /admin/api/stores/<slug>/erasures`, or a file of one entry a line), each one the database
 * does not hold. The entries hold salted hashes only; every agent key of the entry's Store is
 * hashed with its salt to find whom it erased (docs/erasure-and-retention.md). The embedded
 * database needs none of this: its data directory keeps the ledger file, applied at start.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { ErasureRecord } from '../src-server/storage/erasure';
import { openPostgresStorage } from '../src-server/storage/postgres/postgres-storage';

const USAGE = 'usage: npm run reapply-erasures -- --database-url postgres://… --from <ledger.json>';

/** `{"erasures": [...]}`, a JSON list, or one JSON entry a line. */
function entriesOf(text: string): ErasureRecord[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') && trimmed.includes('"erasures"')) return (JSON.parse(trimmed) as { erasures: ErasureRecord[] }).erasures;
  if (trimmed.startsWith('[')) return JSON.parse(trimmed) as ErasureRecord[];
  return trimmed.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as ErasureRecord);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { 'database-url': { type: 'string' }, from: { type: 'string' } }, strict: true }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!values['database-url'] || !values.from) {
    console.error(USAGE);
    return 2;
  }
  const entries = entriesOf(await readFile(values.from, 'utf8'));
  const storage = await openPostgresStorage({ url: values['database-url'], poolSize: 2 });
  try {
    let applied = 0;
    for (const entry of entries) {
      const counts = await storage.reapplyErasure(entry);
      if (counts === null) continue;
      applied++;
      console.log(`applied again erasure ${entry.id} of ${entry.at}: ${counts.statements} statements, ${counts.rejections} rejected entries, ${counts.stateDocuments + counts.agentProfileDocuments} documents`);
    }
    console.log(`${applied} of ${entries.length} erasures applied again; the others were held already or their Store is not in this database.`);
    return 0;
  } finally {
    await storage.close();
  }
}

process.exitCode = await main();
