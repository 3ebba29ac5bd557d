import { describe, expect, it } from 'vitest';
import { parseAgentsQuery, personFor } from '../../src-server/xapi/person';

const query = (agent: unknown) => parseAgentsQuery({ agent: typeof agent === 'string' ? agent : JSON.stringify(agent) });

// xAPI 1.0.3 Part Three §2.4 Agents Resource.
describe('parseAgentsQuery', () => {
  it('accepts an Agent with one identifier, with or without objectType', () => {
    expect(query({ objectType: 'Agent', mbox: 'mailto:ada@example.com' })).toMatchObject({ ok: true });
    expect(query({ account: { homePage: 'https://lms.example.com', name: 'ada' } })).toMatchObject({ ok: true });
  });

  it('rejects a missing agent and names agent', () => {
    expect(parseAgentsQuery({})).toMatchObject({ ok: false, issue: { field: 'agent', message: expect.stringMatching(/required/) } });
  });

  it('rejects an Agent without an identifier (XAPI-00249) and names agent', () => {
    const result = query({ objectType: 'Agent', name: 'Rick James' });
    expect(result).toMatchObject({ ok: false, issue: { field: 'agent', message: expect.stringMatching(/identifier/) } });
  });

  it('rejects a Group: the parameter "is not a Person Object, nor is it a Group" (§2.4.s2)', () => {
    expect(query({ objectType: 'Group', mbox: 'mailto:team@example.com' })).toMatchObject({
      ok: false,
      issue: { field: 'agent', message: expect.stringMatching(/not a Group/) },
    });
  });

  it('rejects JSON that is not an object, and text that is not JSON', () => {
    expect(query('not json')).toMatchObject({ ok: false, issue: { field: 'agent', message: expect.stringMatching(/not valid JSON/) } });
    expect(query('[1]')).toMatchObject({ ok: false, issue: { field: 'agent' } });
  });

  it('rejects another parameter, suggesting the right case for a wrong-case one (§3.2.s3.b7, b8)', () => {
    expect(parseAgentsQuery({ Agent: '{}' })).toMatchObject({
      ok: false,
      issue: { field: 'Agent', message: expect.stringMatching(/did you mean "agent"/) },
    });
    expect(parseAgentsQuery({ agent: '{"mbox":"mailto:a@example.com"}', limit: '1' })).toMatchObject({ ok: false, issue: { field: 'limit' } });
  });
});

describe('personFor', () => {
  // §2.4.s3.b3: with nothing more known, the Person holds only the requested Agent's information.
  it('gives the Agent’s identifier and name as one-item arrays, with objectType Person', () => {
    expect(personFor({ objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@example.com' })).toEqual({
      objectType: 'Person',
      name: ['Ada'],
      mbox: ['mailto:ada@example.com'],
    });
    expect(personFor({ mbox_sha1sum: 'cd9b00a5611f94eaa7b1661edab976068e364975' })).toEqual({
      objectType: 'Person',
      mbox_sha1sum: ['cd9b00a5611f94eaa7b1661edab976068e364975'],
    });
    expect(personFor({ openid: 'https://openid.example.com/ada' })).toEqual({ objectType: 'Person', openid: ['https://openid.example.com/ada'] });
    expect(personFor({ account: { homePage: 'https://lms.example.com', name: 'ada' } })).toEqual({
      objectType: 'Person',
      account: [{ homePage: 'https://lms.example.com', name: 'ada' }],
    });
  });
});
