import { describe, expect, it } from 'vitest';
import { parseDocumentParams } from '../../src-server/xapi/document-params';

const AGENT = JSON.stringify({ objectType: 'Agent', mbox: 'mailto:Ada@Example.com' });
const ACTIVITY = 'http://example.com/courses/module-1';
const REGISTRATION = '5F1A0C3E-8B7D-4E2A-9C1F-0A2B3C4D5E6F';

const state = { activityId: ACTIVITY, agent: AGENT, stateId: 'bookmark' };

describe('State parameters (1.0.3 Communication §2.3; 2.0.0 §4.1.6.2)', () => {
  it('names one document by activity, canonical agent key, registration and stateId', () => {
    expect(parseDocumentParams('state', 'PUT', { ...state, registration: REGISTRATION }, '1.0.3')).toEqual({
      ok: true,
      target: {
        one: true,
        key: {
          kind: 'state',
          activityId: ACTIVITY,
          agent: 'mbox:mailto:Ada@example.com',
          registration: REGISTRATION.toLowerCase(),
          id: 'bookmark',
        },
      },
    });
  });

  it('reads a single document without registration as the one stored without one', () => {
    const parsed = parseDocumentParams('state', 'GET', state, '1.0.3');
    expect(parsed.ok && parsed.target.one && parsed.target.key.registration).toBeNull();
  });

  it('names a set for GET and DELETE without stateId: any registration unless one is given', () => {
    const { stateId: _id, ...withoutId } = state;
    expect(parseDocumentParams('state', 'GET', { ...withoutId, since: '2024-05-01T10:00:00+02:00' }, '2.0.0')).toEqual({
      ok: true,
      target: { one: false, set: { kind: 'state', activityId: ACTIVITY, agent: 'mbox:mailto:Ada@example.com', since: '2024-05-01T08:00:00.000Z' } },
    });
    const deleted = parseDocumentParams('state', 'DELETE', { ...withoutId, registration: REGISTRATION }, '1.0.3');
    expect(deleted.ok && !deleted.target.one && deleted.target.set.registration).toBe(REGISTRATION.toLowerCase());
  });

  it.each([
    ['activityId', { agent: AGENT, stateId: 'x' }],
    ['agent', { activityId: ACTIVITY, stateId: 'x' }],
    ['stateId', { activityId: ACTIVITY, agent: AGENT }],
  ])('rejects a PUT without %s and names it', (field, params) => {
    expect(parseDocumentParams('state', 'PUT', params, '1.0.3')).toMatchObject({ ok: false, issue: { field } });
  });

  it.each([
    ['activityId', { activityId: 'not an iri' }],
    ['agent', { agent: 'not JSON' }],
    ['agent', { agent: 'true' }],
    ['agent', { agent: JSON.stringify({ mbox: 'ada@example.com' }) }],
    ['registration', { registration: 'true' }],
    ['stateId', { stateId: '' }],
  ])('rejects an invalid %s and names it', (field, override) => {
    expect(parseDocumentParams('state', 'POST', { ...state, ...override }, '1.0.3')).toMatchObject({ ok: false, issue: { field } });
  });

  it('rejects since that is not a timestamp, and since together with stateId', () => {
    const { stateId: _id, ...withoutId } = state;
    expect(parseDocumentParams('state', 'GET', { ...withoutId, since: 'not a timestamp' }, '1.0.3')).toMatchObject({ issue: { field: 'since' } });
    expect(parseDocumentParams('state', 'GET', { ...state, since: '2024-05-01T10:00:00Z' }, '1.0.3')).toMatchObject({ issue: { field: 'since' } });
  });

  // 1.0.3 §3.2.s3.b7/b8: unknown parameters, and known ones in another case, are rejected.
  it('rejects a parameter it does not define, hinting at a case mistake', () => {
    expect(parseDocumentParams('state', 'PUT', { ...state, profileId: 'x' }, '1.0.3')).toMatchObject({ issue: { field: 'profileId' } });
    const wrongCase = parseDocumentParams('state', 'PUT', { ...state, StateId: 'x' }, '1.0.3');
    expect(wrongCase).toMatchObject({ ok: false, issue: { field: 'StateId' } });
    expect(!wrongCase.ok && wrongCase.issue.message).toMatch(/did you mean "stateId"/);
    expect(parseDocumentParams('state', 'DELETE', { ...state, since: '2024-05-01T10:00:00Z' }, '1.0.3')).toMatchObject({ issue: { field: 'since' } });
  });
});

describe('profile parameters (1.0.3 Communication §2.6–2.7; 2.0.0 §4.1.6.5–6)', () => {
  it('keys an Activity Profile by activityId and profileId, and an Agent Profile by agent and profileId', () => {
    expect(parseDocumentParams('activityProfile', 'PUT', { activityId: ACTIVITY, profileId: 'p' }, '1.0.3')).toMatchObject({
      target: { one: true, key: { kind: 'activityProfile', activityId: ACTIVITY, agent: null, registration: null, id: 'p' } },
    });
    expect(parseDocumentParams('agentProfile', 'PUT', { agent: AGENT, profileId: 'p' }, '1.0.3')).toMatchObject({
      target: { one: true, key: { kind: 'agentProfile', activityId: null, agent: 'mbox:mailto:Ada@example.com', id: 'p' } },
    });
  });

  it('lists profile ids on GET without profileId, but refuses DELETE without it', () => {
    expect(parseDocumentParams('agentProfile', 'GET', { agent: AGENT }, '1.0.3')).toMatchObject({ ok: true, target: { one: false } });
    expect(parseDocumentParams('agentProfile', 'DELETE', { agent: AGENT }, '1.0.3')).toMatchObject({ ok: false, issue: { field: 'profileId' } });
  });

  it('does not take parameters of the other resources', () => {
    expect(parseDocumentParams('activityProfile', 'GET', { activityId: ACTIVITY, agent: AGENT }, '1.0.3')).toMatchObject({ issue: { field: 'agent' } });
    expect(parseDocumentParams('agentProfile', 'GET', { agent: AGENT, registration: REGISTRATION }, '1.0.3')).toMatchObject({
      issue: { field: 'registration' },
    });
  });
});
