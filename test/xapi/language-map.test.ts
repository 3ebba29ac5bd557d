import { describe, expect, it } from 'vitest';
import { preferredText } from '../../src-server/xapi/language-map';

describe('the text read from a language map', () => {
  it('is en-US, then any English, then the first entry', () => {
    expect(preferredText({ fr: 'terminé', 'en-GB': 'finished', 'EN-us': 'completed' })).toBe('completed');
    expect(preferredText({ fr: 'terminé', 'en-GB': 'finished' })).toBe('finished');
    expect(preferredText({ de: 'bestanden', fr: 'réussi' })).toBe('bestanden');
  });

  it('passes over empty texts and tags that only start like English', () => {
    expect(preferredText({ 'en-US': ' ', en: 'completed' })).toBe('completed');
    expect(preferredText({ enx: 'other', de: 'bestanden' })).toBe('other');
    expect(preferredText({ eng: 'x', 'en-AU': 'done' })).toBe('done');
  });

  it('is null for what is not a language map or holds no text', () => {
    for (const value of [undefined, null, 'completed', ['completed'], {}, { 'en-US': '' }, { 'en-US': 3 }]) expect(preferredText(value)).toBeNull();
  });
});
