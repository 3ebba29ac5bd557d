/** What the Explorer's names and words are (src-server/storage/explorer-names.ts), the same for both implementations. */
import { describe, expect, it } from 'vitest';
import { activityNameEntry, latestNameEntries, searchText, searchWords, statementNameEntries } from '../../src-server/storage/explorer-names';

describe('the words of a name', () => {
  it('are lower case, without accents, split at anything not a letter or digit', () => {
    expect(searchWords('  Zoë  Ölander-Smith, module 4!')).toEqual(['zoe', 'olander', 'smith', 'module', '4']);
    expect(searchWords('—, …')).toEqual([]);
    expect(searchText('Safety 3, module 4')).toBe(' safety 3 module 4');
  });

  it('are bounded, so that a long name keeps a row small', () => {
    expect(searchWords('w '.repeat(100))).toHaveLength(32);
    expect(searchWords('x'.repeat(100))[0]).toHaveLength(40);
  });
});

describe('the names of a statement', () => {
  it('are its actor, the members of a Group, an Agent object, and its verb display', () => {
    const statement = {
      actor: { objectType: 'Group', name: 'Team A', mbox: 'mailto:team@example.com', member: [{ name: 'Ada', mbox: 'mailto:ada@example.com' }, { mbox: 'mailto:nameless@example.com' }] },
      verb: { id: 'http://example.com/verbs/mentored', display: { de: 'betreute', 'en-GB': 'mentored' } },
      object: { objectType: 'Agent', account: { homePage: 'https://lms.example.com', name: 'u19' } },
      authority: { name: 'Storyline key', account: { homePage: 'https://lrs.example.com', name: 'lore_test_1' } },
    };
    expect(statementNameEntries(statement)).toEqual([
      { kind: 'agent', value: 'mbox:mailto:team@example.com', name: 'Team A', text: 'Team A' },
      { kind: 'agent', value: 'mbox:mailto:ada@example.com', name: 'Ada', text: 'Ada' },
      { kind: 'agent', value: 'account:https://lms.example.com|u19', name: 'u19', text: 'u19' },
      { kind: 'verb', value: 'http://example.com/verbs/mentored', name: 'mentored', text: 'betreute\nmentored' },
    ]);
  });

  it('take the later of two names in one batch', () => {
    const rows = [
      { actor: { name: 'Ada Lovelace', mbox: 'mailto:ada@example.com' }, verb: { id: 'v' } },
      { actor: { name: 'Ada King', mbox: 'mailto:ada@example.com' }, verb: { id: 'v' } },
    ];
    expect(latestNameEntries(rows).map((e) => e.name)).toEqual(['Ada King']);
  });

  it('of an Activity are its definition name, en-US first', () => {
    expect(activityNameEntry('http://example.com/a', { name: { fr: 'Module quatre', 'en-US': 'Module 4' } })).toMatchObject({ name: 'Module 4', text: 'Module quatre\nModule 4' });
    expect(activityNameEntry('http://example.com/a', { description: { 'en-US': 'no name' } })).toBeNull();
  });
});
