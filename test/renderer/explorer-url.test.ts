import { describe, expect, it } from 'vitest';
import { draftFromUrl, searchFromUrl, urlFromDraft } from '../../src-renderer/features/explorer/explorer-url';

describe("the Explorer's search in the URL", () => {
  it('fills the form from the URL and writes the same URL back from it', () => {
    const url = { actor: 'Ada', verb: 'completed', activity: 'Module 4', registration: 'r-1', status: 'rejected', warned: 'true' };
    const draft = draftFromUrl(url);
    expect(draft).toEqual({ agent: 'Ada', verb: 'completed', activity: 'Module 4', registration: 'r-1', status: 'rejected', warned: true, since: '', until: '' });
    expect(urlFromDraft(draft)).toEqual(url);
  });

  it('keeps times as instants in the URL and as local minutes in the form', () => {
    const since = new Date(2026, 0, 2, 9, 30).toISOString();
    const draft = draftFromUrl({ since });
    expect(draft.since).toBe('2026-01-02T09:30');
    expect(urlFromDraft(draft)).toEqual({ since });
  });

  it('has an empty form and no filters for no URL, and drops what is only spaces', () => {
    expect(urlFromDraft(draftFromUrl(undefined))).toBeUndefined();
    expect(urlFromDraft({ ...draftFromUrl(undefined), agent: '   ' })).toBeUndefined();
    expect(draftFromUrl({ status: 'nonsense' }).status).toBe('all');
  });

  it("asks the API with its names: the URL's actor is the API's agent", () => {
    expect(searchFromUrl({ actor: 'Ada', status: 'voided', warned: 'true' })).toEqual({ agent: 'Ada', status: 'voided', warned: 'true' });
    expect(searchFromUrl(undefined)).toEqual({});
  });
});
