/**
 * `npm run export` against a running service: the filtered export streamed to a file (whole, under
 * its name only once complete) or to stdout, and a refusal printed with the field at fault.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from '../http/test-app';

const run = promisify(execFile);

describe('npm run export', () => {
  let t: TestApp;
  let url: string;
  let ids: string[];
  const dir = mkdtempSync(join(tmpdir(), 'lore-export-command-'));
  const exportCommand = (args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/export.ts', '--url', url, ...args], { env: { ...process.env, LRS_ADMIN_TOKEN: ADMIN_TOKEN } });

  beforeAll(async () => {
    t = await buildTestApp();
    await t.createStore('course');
    const key = await t.createKey('course');
    const sent = await t.xapi(key, {
      method: 'POST',
      url: '/course/xAPI/statements',
      payload: ['ada', 'grace'].map((who) => ({ actor: { mbox: `mailto:${who}@example.com` }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/c' } })),
    });
    ids = sent.json() as string[];
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the filtered export to --out, or to stdout', async () => {
    const out = join(dir, 'ada.csv');
    const { stderr } = await exportCommand(['--store', 'course', '--format', 'csv', '--agent', 'ada@example.com', '--out', out]);
    expect(stderr).toContain(`export written to ${out}`);
    const rows = readFileSync(out, 'utf8').trim().split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(ids[0]);
    const { stdout } = await exportCommand(['--store', 'course']);
    expect(stdout.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(ids);
  }, 30_000);

  it('prints the refusal with the field at fault and exits 1; usage errors exit 2', async () => {
    const refused = await exportCommand(['--store', 'course', '--since', 'yesterday']).catch((err: { code: number; stderr: string }) => err);
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toMatch(/the service refused the export \(400\): .*since/);
    const usage = await exportCommand([]).catch((err: { code: number; stderr: string }) => err);
    expect(usage).toMatchObject({ code: 2 });
    expect((usage as { stderr: string }).stderr).toContain('--store is required');
  }, 30_000);
});
