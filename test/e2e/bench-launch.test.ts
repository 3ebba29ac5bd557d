/**
 * The Test Bench end to end in real Chromium against a real service: the sample packages (their
 * xAPI side is TinCanJS and @xapi/cmi5, code nobody here wrote) are imported, launched, run in a
 * tab of their own, and their attempt appears with its outcome and the rules it broke.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSamplePackage } from '../fixtures/packages/samples/build-sample';
import type { SampleName } from '../fixtures/packages/samples/build-sample';
import { buildZip } from '../bench/zip-writer';
import { ADMIN_TOKEN, buildConsole, findChromium, SCREENS_DIR, startConsoleHarness, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

interface AttemptAnswer {
  statements: Array<{ byLms: boolean; statement: { id: string; verb: { id: string } } }>;
  outcome: { completion: boolean | null; success: boolean | null; score: { scaled?: number } | null };
  violations: Array<{ statementId: string | null; rule: string; severity: string }>;
  documents: Array<{ stateId: string; content: unknown }>;
  documentWrites: Array<{ method: string; stateId: string; status: number; changes: unknown }>;
}

describe.skipIf(!chromiumPath)('the Test Bench in Chromium', () => {
  let h: ConsoleHarness;
  const admin = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const response = await fetch(`${h.service.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : body instanceof Buffer ? new Uint8Array(body) : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    await admin('POST', '/stores', { slug: 'bench', name: 'Bench', environment: 'test' });
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  async function importSample(name: SampleName): Promise<string> {
    const files = await buildSamplePackage(name);
    const zip = buildZip([...files].map(([path, content]) => ({ name: path, content })));
    const pkg = (await admin('POST', '/stores/bench/packages', zip, 'application/zip')) as { id: string };
    return pkg.id;
  }

  /** Launches the sample's first unit in a tab of its own and waits for the page to finish. */
  async function runSample(name: SampleName): Promise<{ registration: string; finishedAt: number }> {
    const packageId = await importSample(name);
    const { url, registration } = (await admin('POST', `/stores/bench/packages/${packageId}/launches`, { learner: { name: 'Ada Test', mbox: 'ada@example.com' } })) as {
      url: string;
      registration: string;
    };
    const tab = await h.context.newPage();
    try {
      await tab.goto(url);
      await tab.waitForFunction('document.body.dataset.done === "true" || document.body.dataset.error !== undefined', undefined, { timeout: 15_000 });
      const error = await tab.evaluate('document.body.dataset.error ?? null');
      expect(error, String(await tab.locator('#log').textContent())).toBeNull();
      return { registration, finishedAt: Date.now() };
    } finally {
      await tab.close();
    }
  }

  /** The attempt once `ready` holds, asked for again until then; fails after 2 s. */
  async function attemptWhen(registration: string, ready: (attempt: AttemptAnswer) => boolean, since: number): Promise<AttemptAnswer> {
    for (;;) {
      const attempt = (await admin('GET', `/stores/bench/attempts/${registration}`)) as AttemptAnswer;
      if (ready(attempt)) return attempt;
      if (Date.now() - since > 2_000) throw new Error(`the attempt was not complete within 2 s: ${JSON.stringify(attempt.statements.map((s) => s.statement.verb.id))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const verbs = (attempt: AttemptAnswer) => attempt.statements.map((s) => s.statement.verb.id.split('/').pop());

  it('runs a Tin Can course built on TinCanJS: its statements, its State and its outcome appear', async () => {
    const { registration, finishedAt } = await runSample('tincan-minimal');
    const attempt = await attemptWhen(registration, (a) => a.statements.length >= 4 && a.documentWrites.length >= 1, finishedAt);
    expect(verbs(attempt)).toEqual(['attempted', 'answered', 'completed', 'passed']);
    expect(attempt.documentWrites).toEqual([expect.objectContaining({ method: 'PUT', stateId: 'bookmark', status: 204, changes: [{ path: 'page', before: null, after: 2 }] })]);
    expect(attempt.outcome).toMatchObject({ completion: true, success: true, score: { scaled: 0.9 } });
    expect(attempt.documents).toEqual([expect.objectContaining({ stateId: 'bookmark', content: { page: 2 } })]);
    expect(attempt.violations.filter((v) => v.severity === 'error')).toEqual([]);
  });

  it('runs a cmi5 AU built on @xapi/cmi5 as its LMS: launched, the AU session, satisfied, no broken rule', async () => {
    const { registration, finishedAt } = await runSample('cmi5-minimal');
    const attempt = await attemptWhen(registration, (a) => verbs(a).filter((v) => v === 'satisfied').length === 1 && verbs(a).includes('terminated'), finishedAt);
    expect(verbs(attempt)).toEqual(['launched', 'initialized', 'completed', 'passed', 'satisfied', 'terminated']);
    expect(attempt.statements.filter((s) => s.byLms).map((s) => s.statement.verb.id.split('/').pop())).toEqual(['launched', 'satisfied']);
    expect(attempt.outcome).toMatchObject({ completion: true, success: true, score: { scaled: 0.9 } });
    expect(attempt.violations).toEqual([]);
  });

  it('calls out what a wrong cmi5 AU breaks: a statement without the context template, one after terminated', async () => {
    const { registration, finishedAt } = await runSample('cmi5-wrong');
    const attempt = await attemptWhen(registration, (a) => verbs(a).includes('experienced'), finishedAt);
    const byVerb = new Map(attempt.statements.map((s) => [s.statement.id, s.statement.verb.id.split('/').pop()]));
    const broken = attempt.violations.filter((v) => v.severity === 'error').map((v) => [byVerb.get(v.statementId ?? ''), v.rule]);
    expect(broken).toContainEqual(['attempted', 'cmi5.session-id']);
    expect(broken).toContainEqual(['experienced', 'cmi5.after-terminated']);
  });

  it('from the console: imports a package, launches it for a learner made up in one click, and shows the attempt live', { timeout: 60_000 }, async () => {
    const page = h.page;
    await page.goto(`${h.service.url}/admin/#/bench/bench`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Test Bench' }).waitFor();

    // A folder as a tool publishes it, unzipped: the console zips it and imports it.
    const folder = join(mkdtempSync(join(tmpdir(), 'lore-bench-folder-')), 'tincan-minimal');
    for (const [path, content] of await buildSamplePackage('tincan-minimal')) {
      mkdirSync(dirname(join(folder, path)), { recursive: true });
      writeFileSync(join(folder, path), content);
    }
    await page.getByTestId('package-folder').setInputFiles(folder);
    await page.getByText(/imported \(Tin Can/).waitFor();
    rmSync(dirname(folder), { recursive: true, force: true });

    const files = await buildSamplePackage('cmi5-wrong');
    const zip = buildZip([...files].map(([path, content]) => ({ name: path, content })));
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Import a package (.zip)' }).click();
    await (await chooser).setFiles({ name: 'cmi5-wrong.zip', mimeType: 'application/zip', buffer: zip });
    await page.getByText(/imported \(cmi5/).waitFor();

    await page.locator('tr[data-package="cmi5 wrong sample"]').last().getByRole('button', { name: 'Launch…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Make up a learner' }).click();
    const learnerName = await dialog.getByLabel('Name').inputValue();
    const course = h.context.waitForEvent('page');
    await dialog.getByRole('button', { name: 'Launch' }).click();
    const tab = await course;
    await tab.waitForFunction('document.body.dataset.done === "true" || document.body.dataset.error !== undefined', undefined, { timeout: 15_000 });
    const finishedAt = Date.now();
    await tab.close();

    // The console moved to the attempt; the statements arrive live within 2 s of the course's last.
    const attempt = page.getByTestId('attempt');
    await attempt.locator('tr[data-statement]').filter({ hasText: 'experienced' }).waitFor({ timeout: 2_000 + (Date.now() - finishedAt) });
    expect(Date.now() - finishedAt).toBeLessThan(2_000);
    await expect(attempt.textContent()).resolves.toContain(learnerName);
    await expect(attempt.locator('tr[data-broken="true"]').count()).resolves.toBeGreaterThanOrEqual(2);
    await expect(page.getByTestId('violations').textContent()).resolves.toMatch(/after.*terminated/i);
    await page.screenshot({ path: `${SCREENS_DIR}/test-bench-attempt.png`, fullPage: true, animations: 'disabled' });

    // This attempt's outcome becomes the expected one: it meets it, criterion by criterion.
    await page.getByRole('button', { name: 'Mark as the expected outcome' }).click();
    await expect(page.getByTestId('verdict').textContent()).resolves.toContain('Meets the expected outcome');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download report (HTML)' }).click();
    const report = await download;
    expect(report.suggestedFilename()).toMatch(/^test-bench-bench-[0-9a-f]{8}\.html$/);
    const reportPath = await report.path();
    expect(readFileSync(reportPath, 'utf8')).toContain('Test Bench report: cmi5 wrong sample');

    // The administrator waives the AU as an LMS would: the LMS's waived, then what it satisfies.
    const units = page.getByTestId('units');
    await units.getByLabel('Waiver reason').click();
    await page.getByRole('option', { name: 'Equivalent Outside Activity' }).click();
    await units.getByRole('button', { name: 'Waive' }).click();
    await units.getByText('waived', { exact: true }).waitFor();
    await attempt.locator('tr[data-statement]').filter({ hasText: 'waived' }).waitFor();
    await attempt.locator('tr[data-statement]').filter({ hasText: 'satisfied' }).first().waitFor();
    await expect(units.getByRole('button', { name: 'Waive' }).count()).resolves.toBe(0);

    // Reset in one action: the attempts go, the package stays.
    await page.getByRole('button', { name: '← All attempts' }).click();
    await page.getByRole('button', { name: 'Reset this test Store' }).click();
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByText('No attempt yet').waitFor();
    await page.locator('tr[data-package="cmi5 wrong sample"]').first().waitFor();
  });
});
