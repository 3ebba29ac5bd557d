/**
 * The Test Bench over HTTP: importing packages (and refusing bad ones with the file named),
 * serving their files beside the Store's endpoint, launching Tin Can and cmi5 units as an LMS,
 * the one-time fetch URL, and the attempt view with its outcome, violations and the LMS's own
 * statements (launched, satisfied, abandoned).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildZip } from '../bench/zip-writer';
import type { ZipEntrySpec } from '../bench/zip-writer';
import { buildTestApp, PUBLIC_URL } from './test-app';
import type { TestApp } from './test-app';

const MANIFESTS = path.resolve(import.meta.dirname, '../fixtures/packages/manifests');
const manifest = (file: string) => readFileSync(path.join(MANIFESTS, file), 'utf8');
const SESSION = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';
const CMI5_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
const MOVEON_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
const LEARNER = { name: 'Ada Test', mbox: 'ada@example.com' };

/** A cmi5 course of one AU, moveOn CompletedAndPassed, masteryScore 0.8. */
const ONE_AU_CMI5 = `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://lore.example/course/ladders"><title><langstring lang="en-US">Ladders</langstring></title>
    <description><langstring lang="en-US">One AU</langstring></description></course>
  <block id="https://lore.example/course/ladders/block/core">
    <title><langstring lang="en-US">Core</langstring></title><description><langstring lang="en-US">Core</langstring></description>
    <au id="https://lore.example/course/ladders/au/quiz" moveOn="CompletedAndPassed" masteryScore="0.8">
      <title><langstring lang="en-US">Quiz</langstring></title><description><langstring lang="en-US">Quiz</langstring></description>
      <url>au/index.html</url>
    </au>
  </block>
</courseStructure>`;

function zip(entries: ZipEntrySpec[]): Buffer {
  return buildZip(entries);
}

describe('Test Bench', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
    await t.createStore('bench');
  });
  afterEach(async () => {
    await t.close();
  });

  async function importZip(body: Buffer, slug = 'bench') {
    return t.admin({ method: 'POST', url: `/admin/api/stores/${slug}/packages`, headers: { 'content-type': 'application/zip' }, payload: body });
  }

  async function launch(packageId: string, body: Record<string, unknown> = { learner: LEARNER }, slug = 'bench') {
    return t.admin({ method: 'POST', url: `/admin/api/stores/${slug}/packages/${packageId}/launches`, payload: body });
  }

  async function attempt(registration: string) {
    const response = await t.admin({ method: 'GET', url: `/admin/api/stores/bench/attempts/${registration}` });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      statements: Array<{ id: string; byLms: boolean; statement: { verb: { id: string }; object: { id: string } } }>;
      documents: Array<{ stateId: string; content: unknown }>;
      outcome: { completion: boolean | null; success: boolean | null; score: { scaled?: number } | null };
      violations: Array<{ statementId: string | null; rule: string }>;
    };
  }

  describe('packages', () => {
    it('imports a cmi5 zip, lists it, serves its files beside the endpoint, and stops serving them once deleted', async () => {
      const imported = await importZip(zip([{ name: 'cmi5.xml', content: manifest('cmi5/ladder-safety/cmi5.xml') }, { name: 'intro/index.html', content: '<html>intro</html>' }, { name: 'quiz/index.html', content: '<html>quiz</html>' }]));
      expect(imported.statusCode, imported.body).toBe(201);
      const pkg = imported.json() as { id: string; kind: string; title: string; units: Array<{ id: string; title: string }> };
      expect(pkg.kind).toBe('cmi5');
      expect(pkg.title).toBe('Ladder Safety');
      expect(pkg.units.map((unit) => unit.title)).toEqual(['Introduction', 'Check your knowledge']);

      const listed = await t.admin({ method: 'GET', url: '/admin/api/stores/bench/packages' });
      expect((listed.json() as { packages: Array<{ id: string }> }).packages.map((p) => p.id)).toEqual([pkg.id]);

      const file = await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/index.html` });
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(file.body).toBe('<html>quiz</html>');
      expect((await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/missing.html` })).statusCode).toBe(404);
      // Seeking in a video: one byte range, 206; a range past the end, 416.
      const part = await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/index.html`, headers: { range: 'bytes=6-9' } });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe('bytes 6-9/17');
      expect(part.body).toBe('quiz');
      const tail = await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/index.html`, headers: { range: 'bytes=-7' } });
      expect(tail.body).toBe('</html>');
      const past = await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/index.html`, headers: { range: 'bytes=100-' } });
      expect(past.statusCode).toBe(416);
      expect(past.headers['content-range']).toBe('bytes */17');
      expect((await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/..%2F..%2Fcmi5.xml` })).statusCode).toBe(404);

      expect((await t.admin({ method: 'DELETE', url: `/admin/api/stores/bench/packages/${pkg.id}` })).statusCode).toBe(204);
      expect((await t.app.inject({ method: 'GET', url: `/bench/packages/${pkg.id}/quiz/index.html` })).statusCode).toBe(404);
      expect((await t.admin({ method: 'DELETE', url: `/admin/api/stores/bench/packages/${pkg.id}` })).statusCode).toBe(404);
    });

    it('imports a Tin Can package published inside a folder, as Storyline does', async () => {
      const imported = await importZip(zip([{ name: 'course/tincan.xml', content: manifest('tincan/storyline/tincan.xml') }, { name: 'course/index_lms.html', content: '<html>story</html>' }]));
      expect(imported.statusCode, imported.body).toBe(201);
      expect(imported.json()).toMatchObject({ kind: 'tincan', title: 'Ladder Safety Basics', units: [{ id: 'urn:articulate:storyline:7QfXa2LmB4k' }] });
    });

    it.each([
      ['a file that is not a zip', Buffer.from('not a zip at all'), /not a zip/i, undefined],
      ['a path that leaves its folder', zip([{ name: '../evil.html', content: 'x' }, { name: 'tincan.xml', content: '<tincan/>' }]), /\.\.\/evil\.html/, '../evil.html'],
      ['a package with no manifest', zip([{ name: 'index.html', content: '<html/>' }]), /tincan\.xml or cmi5\.xml/, undefined],
      ['a cmi5.xml whose AU has no url', zip([{ name: 'cmi5.xml', content: manifest('cmi5/broken-no-url/cmi5.xml') }]), /cmi5\.xml/, 'cmi5.xml'],
    ])('refuses %s with 400 naming the problem, and keeps nothing', async (_what, body, message, field) => {
      const response = await importZip(body);
      expect(response.statusCode, response.body).toBe(400);
      const { error } = response.json() as { error: { code: string; message: string; field?: string } };
      expect(error.code).toBe('invalid_package');
      expect(error.message).toMatch(message);
      if (field !== undefined) expect(error.field).toBe(field);
      expect((await t.admin({ method: 'GET', url: '/admin/api/stores/bench/packages' })).json()).toEqual({ packages: [] });
    });

    it('refuses a body that is not a zip by its Content-Type (415), and an unknown Store (404)', async () => {
      const wrongType = await t.admin({ method: 'POST', url: '/admin/api/stores/bench/packages', headers: { 'content-type': 'application/json' }, payload: {} });
      expect(wrongType.statusCode).toBe(415);
      expect((await importZip(zip([{ name: 'tincan.xml', content: '<tincan/>' }]), 'nowhere')).statusCode).toBe(404);
    });
  });

  describe('Tin Can launch', () => {
    async function importStoryline(): Promise<string> {
      const imported = await importZip(zip([{ name: 'tincan.xml', content: manifest('tincan/storyline/tincan.xml') }, { name: 'index_lms.html', content: '<html>story</html>' }]));
      expect(imported.statusCode, imported.body).toBe(201);
      return (imported.json() as { id: string }).id;
    }

    it('hands out a launch URL with endpoint, auth, actor, registration and activity_id that work', async () => {
      const packageId = await importStoryline();
      const launched = await launch(packageId);
      expect(launched.statusCode, launched.body).toBe(201);
      const { url, registration } = launched.json() as { url: string; registration: string };
      const parsed = new URL(url);
      expect(`${parsed.origin}${parsed.pathname}`).toBe(`${PUBLIC_URL}/bench/packages/${packageId}/index_lms.html`);
      const params = parsed.searchParams;
      expect(params.get('endpoint')).toBe(`${PUBLIC_URL}/bench/xAPI/`);
      expect(params.get('registration')).toBe(registration);
      expect(params.get('activity_id')).toBe('urn:articulate:storyline:7QfXa2LmB4k');
      expect(JSON.parse(params.get('actor')!)).toEqual({ objectType: 'Agent', name: 'Ada Test', mbox: 'mailto:ada@example.com' });
      // Every value is encoded: no raw "=" for players that split on it.
      expect(parsed.search).not.toMatch(/auth=Basic [^&]*=/);

      const file = await t.app.inject({ method: 'GET', url: parsed.pathname + parsed.search });
      expect(file.statusCode).toBe(200);
      const auth = params.get('auth')!;

      // State writes of the attempt, done and refused, each with the change it made.
      const stateUrl = `/bench/xAPI/activities/state?${new URLSearchParams({
        activityId: 'urn:articulate:storyline:7QfXa2LmB4k',
        agent: params.get('actor')!,
        registration,
        stateId: 'bookmark',
      })}`;
      const stateHeaders = { authorization: auth, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' };
      const first = await t.app.inject({ method: 'PUT', url: stateUrl, headers: stateHeaders, payload: { page: 1, visited: ['intro'] } });
      expect(first.statusCode).toBe(204);
      const second = await t.app.inject({ method: 'PUT', url: stateUrl, headers: { ...stateHeaders, 'if-match': first.headers.etag as string }, payload: { page: 2, visited: ['intro'] } });
      expect(second.statusCode).toBe(204);
      const stale = await t.app.inject({ method: 'PUT', url: stateUrl, headers: { ...stateHeaders, 'if-match': first.headers.etag as string }, payload: { page: 3 } });
      expect(stale.statusCode).toBe(412);
      const sent = await t.app.inject({
        method: 'POST',
        url: '/bench/xAPI/statements',
        headers: { authorization: auth, 'x-experience-api-version': '1.0.3' },
        payload: {
          actor: { objectType: 'Agent', name: 'Ada Test', mbox: 'mailto:ada@example.com' },
          verb: { id: 'http://adlnet.gov/expapi/verbs/passed', display: { 'en-US': 'passed' } },
          object: { id: 'urn:articulate:storyline:7QfXa2LmB4k' },
          result: { success: true, completion: true, score: { scaled: 0.9 } },
          context: { registration },
        },
      });
      expect(sent.statusCode, sent.body).toBe(200);
      let seen = await attempt(registration);
      for (let i = 0; i < 50 && (seen as unknown as { documentWrites: unknown[] }).documentWrites.length < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen = await attempt(registration);
      }
      const writes = (seen as unknown as { documentWrites: Array<{ method: string; status: number; changes: unknown }> }).documentWrites;
      expect(writes.map((w) => [w.method, w.status, w.changes])).toEqual([
        ['PUT', 204, [{ path: 'page', before: null, after: 1 }, { path: 'visited', before: null, after: ['intro'] }]],
        ['PUT', 204, [{ path: 'page', before: 1, after: 2 }]],
        ['PUT', 412, []],
      ]);
      expect(seen.documents).toEqual([expect.objectContaining({ stateId: 'bookmark', content: { page: 2, visited: ['intro'] } })]);
      expect(seen.statements).toHaveLength(1);
      expect(seen.outcome).toMatchObject({ completion: true, success: true, score: { scaled: 0.9 } });
      expect(seen.violations).toEqual([]);
    });

    it('flags a statement without the registration, and refuses to launch on a live Store', async () => {
      const packageId = await importStoryline();
      const { url, registration } = (await launch(packageId)).json() as { url: string; registration: string };
      const auth = new URL(url).searchParams.get('auth')!;
      const sent = await t.app.inject({
        method: 'POST',
        url: '/bench/xAPI/statements',
        headers: { authorization: auth, 'x-experience-api-version': '1.0.3' },
        payload: { actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'urn:articulate:storyline:7QfXa2LmB4k' }, context: { registration: randomUUID() } },
      });
      expect(sent.statusCode).toBe(200);
      // A statement of another registration is not this attempt's.
      expect((await attempt(registration)).statements).toEqual([]);

      await t.createStore('production', 'live');
      const liveImport = await importZip(zip([{ name: 'tincan.xml', content: manifest('tincan/storyline/tincan.xml') }, { name: 'index_lms.html', content: 'x' }]), 'production');
      const refused = await launch((liveImport.json() as { id: string }).id, { learner: LEARNER }, 'production');
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: { code: 'live_store', message: expect.stringMatching(/live Store/) as unknown } });
    });

    it.each(['storyline', 'storyline-classic', 'rise', 'adapt', 'ispring', 'captivate', 'lectora'])(
      'imports and launches the package shape %s publishes, its launch file served',
      async (tool) => {
        const xml = manifest(`tincan/${tool}/tincan.xml`);
        const launchFile = /<launch[^>]*>\s*([^<\s]+)\s*<\/launch>/.exec(xml)![1]!.split('?')[0]!;
        const imported = await importZip(zip([{ name: 'tincan.xml', content: xml }, { name: launchFile, content: `<html>${tool}</html>` }]));
        expect(imported.statusCode, imported.body).toBe(201);
        const { url } = (await launch((imported.json() as { id: string }).id)).json() as { url: string };
        const parsed = new URL(url);
        expect(decodeURIComponent(parsed.pathname)).toMatch(new RegExp(`/${launchFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
        const served = await t.app.inject({ method: 'GET', url: parsed.pathname + parsed.search });
        expect(served.statusCode).toBe(200);
        expect(served.body).toBe(`<html>${tool}</html>`);
      },
    );

    it("ends the attempt's key a minute after the course says it exited the launched activity, not another", async () => {
      const packageId = await importStoryline();
      const { url, registration } = (await launch(packageId)).json() as { url: string; registration: string };
      const auth = new URL(url).searchParams.get('auth')!;
      const keyId = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString('utf8').split(':')[0]!;
      const expiresAt = async () =>
        ((await t.admin({ method: 'GET', url: `/admin/api/stores/bench/keys/${keyId}` })).json() as { expiresAt: string }).expiresAt;
      const send = (verb: string, objectId: string) =>
        t.app.inject({
          method: 'POST',
          url: '/bench/xAPI/statements',
          headers: { authorization: auth, 'x-experience-api-version': '1.0.3' },
          payload: { actor: { mbox: 'mailto:ada@example.com' }, verb: { id: `http://adlnet.gov/expapi/verbs/${verb}` }, object: { id: objectId }, context: { registration } },
        });
      const launchedFor = Date.parse(await expiresAt()) - Date.now();
      expect(launchedFor).toBeGreaterThan(60 * 60_000); // hours, while the attempt runs

      // Leaving a slide inside the course is not the end of the attempt.
      expect((await send('exited', 'urn:articulate:storyline:7QfXa2LmB4k/slide-2')).statusCode).toBe(200);
      expect((await send('experienced', 'urn:articulate:storyline:7QfXa2LmB4k')).statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(Date.parse(await expiresAt()) - Date.now()).toBeGreaterThan(60 * 60_000);

      expect((await send('exited', 'urn:articulate:storyline:7QfXa2LmB4k')).statusCode).toBe(200);
      let left = Date.parse(await expiresAt()) - Date.now();
      for (let i = 0; i < 50 && left > 60_000; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        left = Date.parse(await expiresAt()) - Date.now();
      }
      expect(left).toBeLessThanOrEqual(60_000);
      expect(left).toBeGreaterThan(0); // the grace: what the course sends as it closes still lands
      expect((await send('experienced', 'urn:articulate:storyline:7QfXa2LmB4k')).statusCode).toBe(200);
    });

    it('refuses a launch without a usable learner, naming the field', async () => {
      const packageId = await importStoryline();
      const response = await launch(packageId, { learner: { name: 'Ada', mbox: 'not-an-address' } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ error: { field: 'learner.mbox' } });
    });
  });

  describe('cmi5 launch', () => {
    async function importCmi5(): Promise<string> {
      const imported = await importZip(zip([{ name: 'cmi5.xml', content: ONE_AU_CMI5 }, { name: 'au/index.html', content: '<html>AU</html>' }]));
      expect(imported.statusCode, imported.body).toBe(201);
      return (imported.json() as { id: string }).id;
    }

    async function launchCmi5(packageId: string) {
      const launched = await launch(packageId);
      expect(launched.statusCode, launched.body).toBe(201);
      const { url, registration } = launched.json() as { url: string; registration: string };
      const params = new URL(url).searchParams;
      return { url, registration, params, fetch: params.get('fetch')!, activityId: params.get('activityId')!, actor: JSON.parse(params.get('actor')!) as Record<string, unknown> };
    }

    async function fetchToken(fetchUrl: string) {
      const response = await t.app.inject({ method: 'POST', url: new URL(fetchUrl).pathname });
      expect(response.statusCode).toBe(200);
      return response.json() as Record<string, string>;
    }

    it('prepares LaunchData and launched before the AU opens, and hands out the token once', async () => {
      const packageId = await importCmi5();
      const l = await launchCmi5(packageId);
      expect(l.activityId).not.toBe('https://lore.example/course/ladders/au/quiz'); // the LMS's id, not the publisher's
      expect(l.actor).toMatchObject({ account: { homePage: PUBLIC_URL, name: 'ada@example.com' } });
      expect((await t.app.inject({ method: 'GET', url: new URL(l.fetch).pathname })).statusCode).toBe(405);

      const first = await fetchToken(l.fetch);
      expect(Object.keys(first)).toEqual(['auth-token']);
      const again = await fetchToken(l.fetch);
      expect(again['error-code']).toBe('1');
      expect(again['auth-token']).toBeUndefined();
      const forged = await fetchToken(l.fetch.replace(/[^/]+$/, 'forged-secret'));
      expect(forged['error-code']).toBe('2');

      const state = await t.app.inject({
        method: 'GET',
        url: `/bench/xAPI/activities/state?${new URLSearchParams({ activityId: l.activityId, agent: JSON.stringify(l.actor), registration: l.registration, stateId: 'LMS.LaunchData' })}`,
        headers: { authorization: `Basic ${first['auth-token']}`, 'x-experience-api-version': '1.0.3' },
      });
      expect(state.statusCode, state.body).toBe(200);
      const launchData = state.json() as { launchMode: string; moveOn: string; masteryScore: number; contextTemplate: { extensions: Record<string, string> } };
      expect(launchData).toMatchObject({ launchMode: 'Normal', moveOn: 'CompletedAndPassed', masteryScore: 0.8 });
      expect(launchData.contextTemplate.extensions[SESSION]).toMatch(/^[0-9a-f-]{36}$/);

      const seen = await attempt(l.registration);
      expect(seen.statements.map((s) => [s.statement.verb.id, s.byLms])).toEqual([['http://adlnet.gov/expapi/verbs/launched', true]]);
    });

    it('records satisfied for the block and the course once moveOn is met, and flags a statement after terminated', async () => {
      const packageId = await importCmi5();
      const l = await launchCmi5(packageId);
      const token = (await fetchToken(l.fetch))['auth-token'];
      const state = await t.app.inject({
        method: 'GET',
        url: `/bench/xAPI/activities/state?${new URLSearchParams({ activityId: l.activityId, agent: JSON.stringify(l.actor), registration: l.registration, stateId: 'LMS.LaunchData' })}`,
        headers: { authorization: `Basic ${token}`, 'x-experience-api-version': '1.0.3' },
      });
      const template = (state.json() as { contextTemplate: Record<string, unknown> }).contextTemplate as { contextActivities: Record<string, unknown>; extensions: Record<string, unknown> };
      const au = (verb: string, result?: Record<string, unknown>, moveOn = false, extensions: Record<string, unknown> = {}) => ({
        id: randomUUID(),
        actor: l.actor,
        verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } },
        object: { objectType: 'Activity', id: l.activityId },
        ...(result ? { result } : {}),
        context: {
          ...template,
          registration: l.registration,
          contextActivities: { ...template.contextActivities, category: [{ id: CMI5_CATEGORY }, ...(moveOn ? [{ id: MOVEON_CATEGORY }] : [])] },
          extensions: { ...template.extensions, ...extensions },
        },
        timestamp: new Date().toISOString(),
      });
      const send = async (statements: unknown[]) => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/bench/xAPI/statements',
          headers: { authorization: `Basic ${token}`, 'x-experience-api-version': '1.0.3' },
          payload: statements,
        });
        expect(response.statusCode, response.body).toBe(200);
      };
      await send([au('initialized')]);
      await send([au('completed', { completion: true, duration: 'PT1M' }, true)]);
      await send([au('passed', { success: true, score: { scaled: 0.9 }, duration: 'PT1M' }, true, { 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore': 0.8 })]);
      await send([au('terminated', { duration: 'PT2M' })]);
      const late = au('experienced');
      await send([late]);

      // moveOn is evaluated after the write is answered: wait for the LMS's statements.
      let seen = await attempt(l.registration);
      for (let i = 0; i < 50 && seen.statements.filter((s) => s.statement.verb.id.endsWith('/satisfied')).length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await attempt(l.registration);
      }
      const satisfied = seen.statements.filter((s) => s.statement.verb.id === 'https://w3id.org/xapi/adl/verbs/satisfied');
      expect(satisfied.map((s) => s.statement.object.id)).toEqual([`urn:lore:package:${packageId}:block:1`, `urn:lore:package:${packageId}:course`]);
      expect(satisfied.every((s) => s.byLms)).toBe(true);
      expect(seen.outcome).toMatchObject({ completion: true, success: true, score: { scaled: 0.9 } });
      expect(seen.violations.map((v) => [v.statementId, v.rule])).toContainEqual([late.id, 'cmi5.after-terminated']);
      expect(seen.documents.map((d) => d.stateId)).toEqual(['LMS.LaunchData']);

      // The session's key ends a minute after its terminated: the attempt's key ends with it.
      const keys = (await t.admin({ method: 'GET', url: '/admin/api/stores/bench/keys' })).json() as { keys: Array<{ name: string; expiresAt: string | null }> };
      const sessionKey = keys.keys.find((key) => key.name.endsWith('(cmi5 session)'))!;
      expect(Date.parse(sessionKey.expiresAt!) - Date.now()).toBeLessThanOrEqual(60_000);
    });

    it('judges every attempt against the reference outcome marked on the package, and hands out the attempt as a report', async () => {
      const packageId = await importCmi5();
      const l = await launchCmi5(packageId);
      const badScore = await t.admin({ method: 'POST', url: `/admin/api/stores/bench/packages/${packageId}/reference`, payload: { completion: true, success: true, minScore: 1.5 } });
      expect(badScore.statusCode).toBe(400);
      expect(badScore.json()).toMatchObject({ error: { field: 'minScore' } });
      const marked = await t.admin({ method: 'POST', url: `/admin/api/stores/bench/packages/${packageId}/reference`, payload: { completion: true, success: true, minScore: 0.8 } });
      expect(marked.statusCode, marked.body).toBe(200);
      expect(marked.json()).toMatchObject({ reference: { completion: true, success: true, minScore: 0.8 } });

      // Only launched so far: the attempt does not meet it, criterion by criterion.
      const seen = (await t.admin({ method: 'GET', url: `/admin/api/stores/bench/attempts/${l.registration}` })).json() as {
        verdict: { met: boolean; criteria: Array<{ criterion: string; met: boolean }> };
      };
      expect(seen.verdict.met).toBe(false);
      expect(seen.verdict.criteria.map((c) => [c.criterion, c.met])).toEqual([
        ['completion', false],
        ['success', false],
        ['minScore', false],
      ]);

      const html = await t.admin({ method: 'GET', url: `/admin/api/stores/bench/attempts/${l.registration}/report` });
      expect(html.statusCode).toBe(200);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html.headers['content-disposition']).toMatch(/^attachment; filename="test-bench-bench-[0-9a-f]{8}\.html"$/);
      expect(html.body).toContain('Does not meet the reference.');
      expect(html.body).toContain('launched');
      const json = await t.admin({ method: 'GET', url: `/admin/api/stores/bench/attempts/${l.registration}/report?format=json` });
      expect(json.json()).toMatchObject({ report: 'lore-test-bench-attempt', registration: l.registration, reference: { minScore: 0.8 } });
      expect((await t.admin({ method: 'GET', url: `/admin/api/stores/bench/attempts/${l.registration}/report?format=pdf` })).statusCode).toBe(400);

      const cleared = await t.admin({ method: 'DELETE', url: `/admin/api/stores/bench/packages/${packageId}/reference` });
      expect(cleared.json()).toMatchObject({ reference: null });
      expect((await attempt(l.registration)) as unknown).toMatchObject({ verdict: null });
      expect((await t.admin({ method: 'DELETE', url: `/admin/api/stores/bench/packages/${randomUUID()}/reference` })).statusCode).toBe(404);
    });

    it('waives an AU as the LMS: waived in a session of its own, then satisfied for the block and the course', async () => {
      const packageId = await importCmi5();
      const l = await launchCmi5(packageId);
      const waive = (body: Record<string, unknown>, registration = l.registration) =>
        t.admin({ method: 'POST', url: `/admin/api/stores/bench/attempts/${registration}/waivers`, payload: body });

      const badReason = await waive({ unit: 'https://lore.example/course/ladders/au/quiz', reason: 'Because' });
      expect(badReason.statusCode).toBe(400);
      expect(badReason.json()).toMatchObject({ error: { field: 'reason', message: expect.stringContaining('Tested Out') as unknown } });
      const unknownUnit = await waive({ unit: 'https://lore.example/nope', reason: 'Tested Out' });
      expect(unknownUnit.statusCode).toBe(400);
      expect(unknownUnit.json()).toMatchObject({ error: { code: 'unknown_unit' } });
      expect((await waive({ unit: 'https://lore.example/course/ladders/au/quiz', reason: 'Tested Out' }, randomUUID())).statusCode).toBe(404);

      const waived = await waive({ unit: 'https://lore.example/course/ladders/au/quiz', reason: 'Tested Out' });
      expect(waived.statusCode, waived.body).toBe(201);
      const { statementId, sessionId } = waived.json() as { statementId: string; sessionId: string };

      let seen = await attempt(l.registration);
      for (let i = 0; i < 50 && seen.statements.filter((s) => s.statement.verb.id.endsWith('/satisfied')).length < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        seen = await attempt(l.registration);
      }
      type Full = { id: string; byLms: boolean; statement: { verb: { id: string }; object: { id: string }; result?: Record<string, unknown>; context: { extensions: Record<string, string>; contextActivities: { category: Array<{ id: string }> } } } };
      const statements = seen.statements as unknown as Full[];
      const record = statements.find((s) => s.id === statementId)!;
      expect(record.byLms).toBe(true);
      expect(record.statement.verb.id).toBe('https://w3id.org/xapi/adl/verbs/waived');
      expect(record.statement.object.id).toBe(l.activityId);
      expect(record.statement.result).toEqual({ success: true, completion: true, extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/reason': 'Tested Out' } });
      expect(record.statement.context.contextActivities.category.map((c) => c.id)).toEqual([CMI5_CATEGORY, MOVEON_CATEGORY]);
      const launchSession = statements[0]!.statement.context.extensions[SESSION];
      expect(record.statement.context.extensions[SESSION]).toBe(sessionId);
      expect(sessionId).not.toBe(launchSession);
      // What the waiver satisfied is recorded in the waiver's session, the only one it may share.
      const satisfied = statements.filter((s) => s.statement.verb.id === 'https://w3id.org/xapi/adl/verbs/satisfied');
      expect(satisfied.map((s) => [s.statement.object.id, s.statement.context.extensions[SESSION]])).toEqual([
        [`urn:lore:package:${packageId}:block:1`, sessionId],
        [`urn:lore:package:${packageId}:course`, sessionId],
      ]);
      expect(seen.outcome).toMatchObject({ completion: true, success: true });
      expect(seen.violations).toEqual([]);

      const again = await waive({ unit: 'https://lore.example/course/ladders/au/quiz', reason: 'Administrative' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ error: { code: 'already_waived' } });
    });

    it('refuses to waive in a Tin Can attempt: only cmi5 has AUs to waive', async () => {
      const imported = await importZip(zip([{ name: 'tincan.xml', content: manifest('tincan/storyline/tincan.xml') }, { name: 'index_lms.html', content: 'x' }]));
      const { registration } = (await launch((imported.json() as { id: string }).id)).json() as { registration: string };
      const refused = await t.admin({ method: 'POST', url: `/admin/api/stores/bench/attempts/${registration}/waivers`, payload: { unit: 'x', reason: 'Administrative' } });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: { code: 'not_cmi5' } });
    });

    it('records abandoned for a session left open when the AU is launched again', async () => {
      const packageId = await importCmi5();
      const first = await launchCmi5(packageId);
      const second = await launchCmi5(packageId);
      expect(second.registration).toBe(first.registration);
      const seen = await attempt(first.registration);
      expect(seen.statements.map((s) => s.statement.verb.id.split('/').pop())).toEqual(['launched', 'abandoned', 'launched']);

      // A session relaunched: the earlier session's key no longer writes.
      const third = await launchCmi5(packageId);
      const token = (await fetchToken(third.fetch))['auth-token'];
      await launchCmi5(packageId);
      const late = await t.app.inject({
        method: 'GET',
        url: `/bench/xAPI/activities/state?${new URLSearchParams({ activityId: third.activityId, agent: JSON.stringify(third.actor), registration: third.registration, stateId: 'LMS.LaunchData' })}`,
        headers: { authorization: `Basic ${token}`, 'x-experience-api-version': '1.0.3' },
      });
      expect(late.statusCode).toBe(401);
    });
  });
});
