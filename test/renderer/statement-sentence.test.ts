import { describe, expect, it } from 'vitest';
import { agentName, iriTail, statementSentence } from '../../src-renderer/features/explorer/statement-sentence';

const completed = { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } };

describe('statementSentence', () => {
  it('reads actor, verb, activity name and scaled score as one line', () => {
    const statement = {
      actor: { mbox: 'mailto:ada@example.com', name: 'Ada' },
      verb: completed,
      object: { id: 'http://example.com/m1', definition: { name: { 'en-US': 'Module 1' } } },
      result: { score: { scaled: 0.9 } },
    };
    expect(statementSentence(statement)).toBe("Ada completed 'Module 1' — score 0.9");
  });

  it('falls back to the email without mailto:, the verb id tail and the activity id', () => {
    const statement = { actor: { mbox: 'mailto:bob@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' }, object: { id: 'http://example.com/q1' } };
    expect(statementSentence(statement)).toBe("bob@example.com attempted 'http://example.com/q1'");
  });

  it('prefers en-US, then any English, then the first language of a display map', () => {
    expect(statementSentence({ actor: { name: 'Ada' }, verb: { id: 'x:v', display: { fr: 'a terminé', 'en-GB': 'finished' } }, object: { id: 'x:a' } })).toBe(
      "Ada finished 'x:a'",
    );
    expect(statementSentence({ actor: { name: 'Ada' }, verb: { id: 'x:v', display: { fr: 'a terminé' } }, object: { id: 'x:a' } })).toBe("Ada a terminé 'x:a'");
  });

  it('writes raw scores with their maximum and success as passed or failed', () => {
    const statement = { actor: { name: 'Ada' }, verb: completed, object: { id: 'x:a' }, result: { score: { raw: 8, max: 10 }, success: false } };
    expect(statementSentence(statement)).toBe("Ada completed 'x:a' — score 8/10, failed");
  });

  it('names agents, statement references and sub-statements as objects', () => {
    expect(statementSentence({ actor: { name: 'Ada' }, verb: { id: 'http://example.com/verbs/mentored' }, object: { objectType: 'Agent', account: { homePage: 'https://x.org', name: 'bob42' } } })).toBe('Ada mentored bob42');
    expect(statementSentence({ actor: { name: 'Ada' }, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: '1234567890ab' } })).toBe(
      'Ada voided statement 12345678',
    );
    expect(
      statementSentence({ actor: { name: 'Ada' }, verb: { id: 'http://example.com/verbs/planned' }, object: { objectType: 'SubStatement', actor: { name: 'Bob' }, verb: completed, object: { id: 'x:b' } } }),
    ).toBe("Ada planned “Bob completed 'x:b'”");
  });

  it('describes malformed payloads instead of throwing', () => {
    expect(statementSentence('nonsense')).toBe('Not a statement (not a JSON object)');
    expect(statementSentence([1, 2])).toBe('A batch, not a statement');
    expect(statementSentence({ verb: completed, object: { id: 'x:a' } })).toBe("Someone completed 'x:a'");
    expect(statementSentence({ actor: { mbox: 'ada@example.com' }, verb: 'completed', object: 3 })).toBe('ada@example.com did something with something');
  });
});

describe('agentName and iriTail', () => {
  it('uses the name, then an IFI', () => {
    expect(agentName({ name: '  Ada ' })).toBe('Ada');
    expect(agentName({ openid: 'https://id.example.com/ada' })).toBe('https://id.example.com/ada');
    expect(agentName({ mbox_sha1sum: 'ebd31e95054c018b10727ccffd2ef2ec3a016ee9' })).toBe('agent ebd31e95…');
    expect(agentName({ objectType: 'Group', member: [] })).toBe('a group');
  });

  it('takes the last path or fragment segment of an IRI', () => {
    expect(iriTail('http://adlnet.gov/expapi/verbs/completed/')).toBe('completed');
    expect(iriTail('http://example.com/verbs#passed')).toBe('passed');
    expect(iriTail('urn:x')).toBe('urn:x');
  });
});
