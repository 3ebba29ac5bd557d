import { describe, expect, it } from 'vitest';
import { parseStatementQuery } from '../../src-server/xapi/statement-query';
import type { XapiVersion } from '../../src-server/xapi/version';

function parsed(params: Record<string, string | undefined>, version: XapiVersion = '1.0.3') {
  const result = parseStatementQuery(params, version);
  if (!result.ok) throw new Error(`${result.issue.field}: ${result.issue.message}`);
  return result.query;
}

function issue(params: Record<string, string | undefined>, version: XapiVersion = '1.0.3') {
  const result = parseStatementQuery(params, version);
  if (result.ok) throw new Error('expected the query to be refused');
  return result.issue;
}

describe('parseStatementQuery', () => {
  it('gives the defaults for an empty query', () => {
    expect(parsed({})).toEqual({
      relatedActivities: false,
      relatedAgents: false,
      limit: 0,
      format: 'exact',
      attachments: false,
      ascending: false,
    });
  });

  it('reads every filter, normalising ids, the agent and times', () => {
    expect(
      parsed({
        agent: '{"mbox":"mailto:ada@EXAMPLE.com"}',
        verb: 'http://adlnet.gov/expapi/verbs/completed',
        activity: 'http://example.com/course',
        registration: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE',
        related_activities: 'true',
        related_agents: 'false',
        since: '2024-05-01T09:30:00+02:00',
        until: '2024-05-02T00:00:00.5Z',
        limit: '25',
        format: 'ids',
        attachments: 'true',
        ascending: 'true',
      }),
    ).toEqual({
      agent: 'mbox:mailto:ada@example.com',
      verb: 'http://adlnet.gov/expapi/verbs/completed',
      activity: 'http://example.com/course',
      registration: 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
      relatedActivities: true,
      relatedAgents: false,
      since: '2024-05-01T07:30:00.000Z',
      until: '2024-05-02T00:00:00.500Z',
      limit: 25,
      format: 'ids',
      attachments: true,
      ascending: true,
    });
  });

  it('treats a parameter whose value is undefined as absent', () => {
    expect(parsed({ agent: undefined, statementId: undefined, limit: '3' }).limit).toBe(3);
  });

  it('caps limit at 500 and keeps 0 as "as many as the server allows"', () => {
    expect(parsed({ limit: '100000000000000000000' }).limit).toBe(500);
    expect(parsed({ limit: '0' }).limit).toBe(0);
  });

  it.each(['-1', '1.5', '+3', 'ten', ''])('refuses limit %j and names limit', (limit) => {
    expect(issue({ limit }).field).toBe('limit');
  });

  it('reads statementId alone, with format and attachments', () => {
    expect(parsed({ statementId: '8F87CCDE-BB56-4C2E-AB83-44982EF22DF0', format: 'canonical', attachments: 'false' })).toMatchObject({
      statementId: '8f87ccde-bb56-4c2e-ab83-44982ef22df0',
      format: 'canonical',
    });
  });

  it('refuses statementId together with voidedStatementId', () => {
    const id = '8f87ccde-bb56-4c2e-ab83-44982ef22df0';
    expect(issue({ statementId: id, voidedStatementId: id }).field).toBe('voidedStatementId');
  });

  it.each(['agent', 'verb', 'activity', 'registration', 'related_activities', 'related_agents', 'since', 'until', 'limit', 'ascending'])(
    'refuses voidedStatementId with %s and names %s',
    (name) => {
      const result = issue({ voidedStatementId: '8f87ccde-bb56-4c2e-ab83-44982ef22df0', [name]: 'x' });
      expect(result.field).toBe(name);
      expect(result.message).toContain('only format and attachments');
    },
  );

  it('refuses malformed values, naming the parameter and quoting the value', () => {
    expect(issue({ statementId: 'wrong' })).toEqual({
      field: 'statementId',
      message: 'statementId must be a UUID such as "f8c4f2a6-62f0-4f0a-9a6e-2b4f1c7f2d3e", got "wrong"',
    });
    expect(issue({ voidedStatementId: 'wrong' }).field).toBe('voidedStatementId');
    expect(issue({ agent: 'wrong' }).field).toBe('agent');
    expect(issue({ verb: 'not.a.valid.iri.com/verb' }).field).toBe('verb');
    expect(issue({ activity: 'not.a.valid.iri.com/activity' }).field).toBe('activity');
    expect(issue({ registration: 'wrong' }).field).toBe('registration');
    expect(issue({ since: 'yesterday' }).field).toBe('since');
    expect(issue({ format: 'IDS' }).message).toBe('format must be "ids", "exact" or "canonical", got "IDS"');
  });

  it('accepts only true and false for booleans', () => {
    for (const value of ['TRUE', '1', 'yes', '']) expect(issue({ ascending: value }).field).toBe('ascending');
  });

  it('refuses a time without zone under 2.0.0 only', () => {
    expect(parsed({ until: '2024-05-01T09:30:00' }, '1.0.3').until).toBe('2024-05-01T09:30:00.000Z');
    expect(issue({ until: '2024-05-01T09:30:00' }, '2.0.0').message).toContain('with a time zone');
  });

  it('refuses an unknown parameter by name, with the right spelling when only the case is wrong', () => {
    expect(issue({ foo: '1' })).toEqual({ field: 'foo', message: 'foo is not a parameter of GET statements' });
    expect(issue({ statementID: '8f87ccde-bb56-4c2e-ab83-44982ef22df0' }).message).toContain('did you mean "statementId"');
  });

  it('is not fooled by prototype names', () => {
    expect(issue(JSON.parse('{"__proto__":"x"}')).field).toBe('__proto__');
    expect(issue({ constructor: 'x' }).field).toBe('constructor');
  });
});
