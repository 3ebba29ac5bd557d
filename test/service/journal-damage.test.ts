/**
 * The damaged-journal path as an operator meets it, with the real service and the real repair
 * command: acknowledged statements, kill -9, 8 bytes overwritten in the middle of the journal.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { surveyJournal } from '../../src-server/storage/sqljs/journal-format';
import { runScript } from './scripts';
import { createStoreAndKey, spawnService, startService, xapiHeaders } from './service-process';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const repair = (dataDir: string) => runScript('repair', ['--data-dir', dataDir]);

function statement(id: string) {
  return {
    id,
    actor: { mbox: 'mailto:ada@example.com', name: 'Ada' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { id: `http://example.com/course/page-${id}` },
  };
}

describe('a journal damaged in the middle', () => {
  it('refuses to start and changes nothing; the repair loses only the damaged record; every other statement is read back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-journal-damage-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await startService(dir);
    const { basic } = await createStoreAndKey(first, 'course');
    const endpoint = `${first.url}/course/xAPI/statements`;
    // 60 requests of 10 statements: 60 journal records, every one acknowledged.
    const ids: string[][] = [];
    for (let i = 0; i < 60; i++) {
      const batch = Array.from({ length: 10 }, () => randomUUID());
      const response = await fetch(endpoint, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify(batch.map(statement)) });
      expect(response.status).toBe(200);
      ids.push(batch);
    }
    first.child.kill('SIGKILL');
    await first.exited;

    const [journalName] = readdirSync(dir).filter((name) => /^journal-\d+\.log$/.test(name));
    const journal = join(dir, journalName!);
    const bytes = readFileSync(journal);
    const records = surveyJournal(bytes).records;
    const damaged = records.find((r) => JSON.stringify(r.record.op).includes(ids[30]![0]!))!;
    bytes.fill(0x20, damaged.offset + 100, damaged.offset + 108);
    writeFileSync(journal, bytes);
    const sizeBefore = statSync(journal).size;

    const refused = spawnService(dir);
    expect((await refused.exited).code).toBe(1);
    expect(refused.output()).toContain(`journal ${journal} is damaged (bad record checksum at byte ${damaged.offset})`);
    // The 29 later batches (and any API-key last-used record written meanwhile).
    expect(Number(/(\d+) whole records follow the damage/.exec(refused.output())?.[1])).toBeGreaterThanOrEqual(29);
    expect(refused.output()).toContain(`npm run repair -- --data-dir ${dir}`);
    expect(statSync(journal).size).toBe(sizeBefore);
    expect(readFileSync(journal)).toEqual(bytes);

    const repaired = await repair(dir);
    expect(repaired.code).toBe(0);
    expect(repaired.output).toContain('lost: 1 journal record');
    for (const id of ids[30]!) expect(repaired.output).toContain(id);
    expect(readdirSync(dir).some((name) => name.startsWith(`${journalName}.damaged-`))).toBe(true);

    const second = await startService(dir);
    cleanups.push(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });
    const read = async (id: string) => (await fetch(`${second.url}/course/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(basic) })).status;
    for (const [i, batch] of ids.entries()) {
      // One statement of each batch: every batch but the damaged one is whole.
      expect([i, await read(batch[i % 10]!)]).toEqual([i, i === 30 ? 404 : 200]);
    }
  }, 90_000);
});
