import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { activityFixture } from '../xapi/activity-fixtures';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore({ name: 'course' });

const MEETING = 'http://example.com/meetings/42';

const post = (payload: unknown, as = demo.key, version = '1.0.3') =>
  demo.t.xapi(as, { method: 'POST', url: '/demo/xAPI/statements', payload: payload as object, version });
const getActivity = (activityId: string | null, as = demo.key, extra: { url?: string; method?: 'GET' | 'HEAD'; version?: string | null } = {}) =>
  demo.t.xapi(as, {
    method: extra.method ?? 'GET',
    url: extra.url ?? '/demo/xAPI/activities',
    query: activityId === null ? {} : { activityId },
    version: extra.version === undefined ? '1.0.3' : extra.version,
  });

// xAPI 1.0.3 Part Three §2.5; 2.0.0 Part Four §4.1.6.4.
describe('GET /activities', () => {
  it('answers the complete Activity Object a statement defined, exactly as sent', async () => {
    expect((await post(activityFixture('meeting-en'))).statusCode).toBe(200);
    const response = await getActivity(MEETING);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(activityFixture('meeting-en').object);
  });

  it('merges what two statements say about one Activity: both languages are kept (XAPI-00254)', async () => {
    expect((await post([activityFixture('meeting-en'), activityFixture('meeting-fr')], demo.key, '2.0.0')).statusCode).toBe(200);
    const { definition } = (await getActivity(MEETING)).json();
    expect(definition.name).toEqual({ 'en-GB': 'example meeting', 'en-US': 'example meeting', 'fr-FR': 'réunion' });
    expect(definition.description).toEqual({ 'en-US': 'A meeting on a given day with certain people present.' });
    // Extensions merge key by key; an extension's value is replaced whole.
    expect(definition.extensions).toEqual({
      'http://example.com/extensions/location': 'Room 4',
      'http://example.com/extensions/reporter': { name: 'Amélie' },
    });
  });

  it('serves definitions given in context activities and in SubStatements', async () => {
    expect((await post([activityFixture('defined-in-context'), activityFixture('defined-in-substatement')])).statusCode).toBe(200);
    expect((await getActivity('http://example.com/quiz/1')).json()).toEqual({
      objectType: 'Activity',
      id: 'http://example.com/quiz/1',
      definition: { name: { 'en-US': 'Capitals quiz' } },
    });
    expect((await getActivity('http://example.com/meetings/43')).json().definition).toEqual({ name: { 'en-US': 'next meeting' } });
  });

  it('answers 200 with an Activity Object holding only the id for an Activity it knows nothing of (§2.5.s2.b1)', async () => {
    const response = await getActivity('http://example.com/never-seen');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ objectType: 'Activity', id: 'http://example.com/never-seen' });
    expect(response.headers['last-modified']).toBeUndefined();
  });

  it('sends a quoted SHA-1 ETag of the body (§3.1.s4.b1, b2, b4) and Last-Modified once defined', async () => {
    await post(activityFixture('meeting-en'));
    const response = await getActivity(MEETING);
    expect(response.headers.etag).toBe(`"${createHash('sha1').update(response.body).digest('hex')}"`);
    expect(Date.parse(response.headers['last-modified'] as string)).not.toBeNaN();
  });

  it('answers HEAD like GET, without a body', async () => {
    await post(activityFixture('meeting-en'));
    const response = await getActivity(MEETING, demo.key, { method: 'HEAD' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBe((await getActivity(MEETING)).headers.etag);
  });

  it('rejects a request without activityId with 400 naming activityId (XAPI-00250)', async () => {
    const response = await getActivity(null);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_parameter', field: 'activityId' });
  });

  it('rejects an activityId that is not an IRI, an unknown parameter and a repeated one, naming each', async () => {
    expect((await getActivity('true')).json().error).toMatchObject({ status: 400, field: 'activityId' });
    const wrongCase = await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/activities?activityID=${encodeURIComponent(MEETING)}` });
    expect(wrongCase.json().error).toMatchObject({ status: 400, field: 'activityID' });
    const twice = await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/activities?activityId=${encodeURIComponent(MEETING)}&activityId=x` });
    expect(twice.json().error).toMatchObject({ status: 400, field: 'activityId' });
  });

  it('rejects a request without the version header with 400, and says its version (XAPI-00321)', async () => {
    const response = await getActivity(MEETING, demo.key, { version: null });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-experience-api-version']).toMatch(/^(1\.0\.\d+|2\.0\.\d+)$/);
  });

  it('serves the key’s Store at the earlier /xapi address too', async () => {
    await post(activityFixture('meeting-en'));
    const response = await getActivity(MEETING, demo.key, { url: '/xapi/activities' });
    expect(response.json().definition.name['en-US']).toBe('example meeting');
  });

  it('keeps each Store’s definitions to itself', async () => {
    await post(activityFixture('meeting-en'));
    await demo.t.createStore('other');
    const otherKey = await demo.t.createKey('other');
    const response = await getActivity(MEETING, otherKey, { url: '/other/xAPI/activities' });
    expect(response.json()).toEqual({ objectType: 'Activity', id: MEETING });
  });

  it('changes no definition for a refused batch', async () => {
    const response = await post([activityFixture('meeting-en'), statement({ actor: { mbox: 'not-an-email' } })]);
    expect(response.statusCode).toBe(400);
    expect((await getActivity(MEETING)).json()).toEqual({ objectType: 'Activity', id: MEETING });
  });

  // 1.0.3 Part Three §4.2, scope "define": without it, statements are stored but "SHOULD NOT
  // update its canonical representation of any Actors or Activities".
  it('stores statements from a key without the define scope but takes no definition from them', async () => {
    const writer = await demo.t.createKey('demo', { name: 'writer', scopes: ['statements/write', 'statements/read'] });
    expect((await post(activityFixture('meeting-en'), writer)).statusCode).toBe(200);
    expect((await getActivity(MEETING, writer)).json()).toEqual({ objectType: 'Activity', id: MEETING });
  });

  it('answers 403 to a key that can neither read statements nor define', async () => {
    const stateOnly = await demo.t.createKey('demo', { name: 'state only', scopes: ['state'] });
    const response = await getActivity(MEETING, stateOnly);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('insufficient_scope');
  });
});
