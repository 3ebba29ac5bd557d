import { describe, expect, it } from 'vitest';
import { guideBlocks, guideInlines } from '../../src-renderer/ui/guide-blocks';

describe('the guides as the console draws them', () => {
  it('reads headings, paragraphs over several lines, lists (with continuation lines) and fenced code', () => {
    const text = ['# Storyline', '', 'Publish for', 'an LMS.', '', '- Endpoint: `x`', '  continued', '- Key', '1. one', '2. two', '```', 'a = 1', '```'].join('\n');
    expect(guideBlocks(text)).toEqual([
      { kind: 'heading', level: 1, text: 'Storyline' },
      { kind: 'paragraph', text: 'Publish for an LMS.' },
      { kind: 'list', ordered: false, items: ['Endpoint: `x` continued', 'Key'] },
      { kind: 'list', ordered: true, items: ['one', 'two'] },
      { kind: 'code', text: 'a = 1' },
    ]);
  });

  it('splits code, bold and links out of text', () => {
    expect(guideInlines('Set **LRS** to `http://x/xAPI/` ([docs](https://example.com)).')).toEqual([
      { kind: 'text', text: 'Set ' },
      { kind: 'bold', text: 'LRS' },
      { kind: 'text', text: ' to ' },
      { kind: 'code', text: 'http://x/xAPI/' },
      { kind: 'text', text: ' (' },
      { kind: 'link', text: 'docs', href: 'https://example.com' },
      { kind: 'text', text: ').' },
    ]);
  });
});
