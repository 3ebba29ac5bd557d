/** @xapi/xapi (npm) documents, activities and agents, used unchanged against a real Lore service. */
import XAPI from '@xapi/xapi';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceWithKey, type ServiceWithKey } from './running-service';

let lore: ServiceWithKey;
let xapi: XAPI;

const agent = { objectType: 'Agent' as const, mbox: 'mailto:ada@example.com' as const };

beforeAll(async () => {
  lore = await startServiceWithKey('documents');
  xapi = new XAPI({ endpoint: lore.endpoint, auth: XAPI.toBasicAuth(lore.keyId, lore.secret), adapter: 'fetch' });
});
afterAll(() => lore.close());

describe('@xapi/xapi documents against Lore', () => {
  it('sets, merges, lists, reads and deletes learner state', async () => {
    const activityId = `http://example.com/courses/${randomUUID()}`;
    const registration = randomUUID();
    await xapi.setState({ agent, activityId, registration, stateId: 'bookmark', state: { page: 3 } });
    await xapi.createState({ agent, activityId, registration, stateId: 'bookmark', state: { score: 0.5 } });
    const state = await xapi.getState({ agent, activityId, registration, stateId: 'bookmark' });
    expect(state.data).toEqual({ page: 3, score: 0.5 });
    expect((await xapi.getStates({ agent, activityId, registration })).data).toEqual(['bookmark']);
    await xapi.deleteState({ agent, activityId, registration, stateId: 'bookmark' });
    expect((await xapi.getStates({ agent, activityId, registration })).data).toEqual([]);
  });

  it('writes an activity profile with If-None-Match, then updates it with If-Match on its ETag', async () => {
    const activityId = `http://example.com/courses/${randomUUID()}`;
    await xapi.setActivityProfile({ activityId, profileId: 'settings', profile: { theme: 'dark' }, etag: '*', matchHeader: 'If-None-Match' });
    const first = await xapi.getActivityProfile({ activityId, profileId: 'settings' });
    const etag = String(first.headers.etag ?? first.headers.ETag);
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    await xapi.setActivityProfile({ activityId, profileId: 'settings', profile: { theme: 'light' }, etag, matchHeader: 'If-Match' });
    expect((await xapi.getActivityProfile({ activityId, profileId: 'settings' })).data).toEqual({ theme: 'light' });
    const stale = await xapi
      .setActivityProfile({ activityId, profileId: 'settings', profile: { theme: 'x' }, etag, matchHeader: 'If-Match' })
      .then(() => 'written', () => 'refused');
    expect(stale).toBe('refused');
  });

  it('writes and reads an agent profile', async () => {
    await xapi.setAgentProfile({ agent, profileId: 'preferences', profile: { language: 'fr' }, etag: '*', matchHeader: 'If-None-Match' });
    expect((await xapi.getAgentProfile({ agent, profileId: 'preferences' })).data).toEqual({ language: 'fr' });
    expect((await xapi.getAgentProfiles({ agent })).data).toContain('preferences');
  });

  it('reads the canonical activity definition and the Person of an agent', async () => {
    const id = `http://example.com/courses/${randomUUID()}`;
    await xapi.sendStatement({
      statement: {
        actor: agent,
        verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
        object: { objectType: 'Activity', id, definition: { name: { 'en-US': 'Module 7' } } },
      },
    });
    const activity = await xapi.getActivity({ activityId: id });
    expect(activity.data.definition?.name).toEqual({ 'en-US': 'Module 7' });
    const person = await xapi.getAgent({ agent });
    expect(person.data.objectType).toBe('Person');
    expect(person.data.mbox).toContain('mailto:ada@example.com');
  });
});
