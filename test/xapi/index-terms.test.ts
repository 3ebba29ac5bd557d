import { describe, expect, it } from 'vitest';
import { extractIndexTerms } from '../../src-server/xapi/index-terms';
import type { IndexTerm } from '../../src-server/xapi/index-terms';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatement } from '../../src-server/xapi/validate-statements';

function statement(value: Record<string, unknown>, version: '1.0.3' | '2.0.0' = '2.0.0'): Statement {
  const result = validateStatement(value, version);
  if (!result.ok) throw new Error(`${result.issue.field}: ${result.issue.message}`);
  return result.statement;
}

const base = {
  actor: { mbox: 'mailto:ada@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/course' },
};

function sorted(terms: IndexTerm[]): IndexTerm[] {
  const text = (term: IndexTerm) => `${term.kind} ${term.value}`;
  return [...terms].sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

describe('extractIndexTerms', () => {
  it('marks the actor and the object Activity as primary', () => {
    const index = extractIndexTerms(statement(base));
    expect(index.verbId).toBe('http://adlnet.gov/expapi/verbs/completed');
    expect(sorted(index.terms)).toEqual([
      { kind: 'activity', value: 'http://example.com/course', primary: true },
      { kind: 'agent', value: 'mbox:mailto:ada@example.com', primary: true },
    ]);
  });

  it('marks an Agent object primary, and the members of actor and object Groups too', () => {
    const index = extractIndexTerms(
      statement({
        ...base,
        actor: { objectType: 'Group', member: [{ mbox: 'mailto:a@example.com' }, { mbox: 'mailto:b@example.com' }] },
        object: { objectType: 'Group', openid: 'https://id.example.com/class', member: [{ mbox: 'mailto:c@example.com' }] },
      }),
    );
    expect(sorted(index.terms)).toEqual([
      { kind: 'agent', value: 'mbox:mailto:a@example.com', primary: true },
      { kind: 'agent', value: 'mbox:mailto:b@example.com', primary: true },
      { kind: 'agent', value: 'mbox:mailto:c@example.com', primary: true },
      { kind: 'agent', value: 'openid:https://id.example.com/class', primary: true },
    ]);
  });

  it('marks authority, instructor, team, context agents and context Activities as related only', () => {
    const index = extractIndexTerms(
      statement({
        ...base,
        authority: { objectType: 'Group', member: [{ account: { homePage: 'https://e.com/oauth', name: 'app' } }, { mbox: 'mailto:user@example.com' }] },
        context: {
          instructor: { mbox: 'mailto:grace@example.com' },
          team: { objectType: 'Group', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:t1@example.com' }] },
          contextAgents: [{ objectType: 'contextAgent', agent: { mbox: 'mailto:coach@example.com' } }],
          contextGroups: [{ objectType: 'contextGroup', group: { objectType: 'Group', member: [{ mbox: 'mailto:g1@example.com' }] } }],
          contextActivities: { parent: { id: 'http://example.com/programme' }, other: [{ id: 'http://example.com/other' }] },
        },
      }),
    );
    const related = sorted(index.terms.filter((term) => !term.primary)).map((term) => term.value);
    expect(index.terms.filter((term) => term.primary).length).toBe(2);
    expect(related).toEqual([
      'http://example.com/other',
      'http://example.com/programme',
      'account:https://e.com/oauth|app',
      'mbox:mailto:coach@example.com',
      'mbox:mailto:g1@example.com',
      'mbox:mailto:grace@example.com',
      'mbox:mailto:t1@example.com',
      'mbox:mailto:team@example.com',
      'mbox:mailto:user@example.com',
    ]);
  });

  it('marks what a SubStatement names as related, not primary', () => {
    const index = extractIndexTerms(
      statement({
        ...base,
        object: {
          objectType: 'SubStatement',
          actor: { mbox: 'mailto:sub@example.com' },
          verb: { id: 'http://example.com/v' },
          object: { id: 'http://example.com/sub-activity' },
          context: { instructor: { mbox: 'mailto:sub-instructor@example.com' }, contextActivities: { grouping: [{ id: 'http://example.com/sub-group' }] } },
        },
      }),
    );
    expect(sorted(index.terms)).toEqual([
      { kind: 'activity', value: 'http://example.com/sub-activity', primary: false },
      { kind: 'activity', value: 'http://example.com/sub-group', primary: false },
      { kind: 'agent', value: 'mbox:mailto:ada@example.com', primary: true },
      { kind: 'agent', value: 'mbox:mailto:sub-instructor@example.com', primary: false },
      { kind: 'agent', value: 'mbox:mailto:sub@example.com', primary: false },
    ]);
  });

  it('keeps a term that is both primary and related once, as primary', () => {
    const index = extractIndexTerms(
      statement({
        ...base,
        authority: { mbox: 'mailto:ADA@example.com' },
        context: { instructor: { mbox: 'mailto:ada@EXAMPLE.com' }, contextActivities: { parent: [{ id: 'http://example.com/course' }] } },
      }),
    );
    expect(sorted(index.terms)).toEqual([
      { kind: 'activity', value: 'http://example.com/course', primary: true },
      { kind: 'agent', value: 'mbox:mailto:ADA@example.com', primary: false },
      { kind: 'agent', value: 'mbox:mailto:ada@example.com', primary: true },
    ]);
  });

  it('gives the lower-cased registration, or null', () => {
    expect(extractIndexTerms(statement({ ...base, context: { registration: 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' } })).registration).toBe(
      'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee',
    );
    expect(extractIndexTerms(statement(base)).registration).toBeNull();
  });

  it('names the voided statement of a voiding statement, and the target of any StatementRef', () => {
    const ref = { objectType: 'StatementRef', id: '8F87CCDE-BB56-4C2E-AB83-44982EF22DF0' };
    const voiding = extractIndexTerms(statement({ ...base, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: ref }));
    expect(voiding.voidsStatementId).toBe('8f87ccde-bb56-4c2e-ab83-44982ef22df0');
    expect(voiding.targetStatementId).toBe('8f87ccde-bb56-4c2e-ab83-44982ef22df0');
    const liking = extractIndexTerms(statement({ ...base, verb: { id: 'http://example.com/verbs/liked' }, object: ref }));
    expect(liking.voidsStatementId).toBeNull();
    expect(liking.targetStatementId).toBe('8f87ccde-bb56-4c2e-ab83-44982ef22df0');
    expect(extractIndexTerms(statement(base)).targetStatementId).toBeNull();
  });
});
