/**
 * The console's copy order: the clipboard API where the page has it, else the selection and
 * execCommand('copy'), else "press the keys". The page's side runs in real Chromium in
 * test/e2e/console-remote-host.test.ts; here a fake page reaches every branch.
 */
import { describe, expect, it } from 'vitest';
import { copyKeys, copyText, type CopyPage } from '../../src-renderer/ui/copy-text';

function fakePage(options: { clipboard?: 'writes' | 'refuses'; selection: 'copies' | 'copies nothing' }) {
  const copied: Array<[how: string, text: string]> = [];
  const page: CopyPage = {
    clipboard:
      options.clipboard === undefined
        ? undefined
        : {
            writeText: async (text) => {
              if (options.clipboard === 'refuses') throw new DOMException('Write permission denied.', 'NotAllowedError');
              copied.push(['clipboard', text]);
            },
          },
    copySelected: (text) => {
      if (options.selection === 'copies nothing') return false;
      copied.push(['selection', text]);
      return true;
    },
  };
  return { page, copied };
}

describe('copyText', () => {
  it('uses the clipboard API where the page has it (a secure context)', async () => {
    const fake = fakePage({ clipboard: 'writes', selection: 'copies' });
    await expect(copyText('secret', fake.page)).resolves.toBe('copied');
    expect(fake.copied).toEqual([['clipboard', 'secret']]);
  });

  it('copies through the selection without the clipboard API (plain http)', async () => {
    const fake = fakePage({ selection: 'copies' });
    await expect(copyText('http://lrs-host:8411/demo/xAPI/', fake.page)).resolves.toBe('copied');
    expect(fake.copied).toEqual([['selection', 'http://lrs-host:8411/demo/xAPI/']]);
  });

  it('falls back to the selection when the clipboard API refuses', async () => {
    const fake = fakePage({ clipboard: 'refuses', selection: 'copies' });
    await expect(copyText('secret', fake.page)).resolves.toBe('copied');
    expect(fake.copied).toEqual([['selection', 'secret']]);
  });

  it('asks for the keys when nothing copies, and says so only then', async () => {
    await expect(copyText('secret', fakePage({ selection: 'copies nothing' }).page)).resolves.toBe('press-keys');
    await expect(copyText('secret', fakePage({ clipboard: 'refuses', selection: 'copies nothing' }).page)).resolves.toBe('press-keys');
  });
});

describe('copyKeys', () => {
  it.each([
    ['MacIntel', '⌘C'],
    ['iPad', '⌘C'],
    ['Win32', 'Ctrl+C'],
    ['Linux x86_64', 'Ctrl+C'],
  ])('%s: %s', (platform, keys) => {
    expect(copyKeys(platform)).toBe(keys);
  });
});
