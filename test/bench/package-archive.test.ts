import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageArchive, safeRelativePath } from '../../src-server/bench/package-archive';
import type { ArchiveFile, ArchiveLimits } from '../../src-server/bench/package-archive';
import { PackageError } from '../../src-server/bench/package-error';
import { buildZip, SYMLINK, unixMode } from './zip-writer';
import type { ZipEntrySpec } from './zip-writer';

const LIMITS: ArchiveLimits = { maxFiles: 100, maxTotalBytes: 1_000_000 };

let dir: string;
let written = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lore-archive-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function zipFile(contents: Buffer): string {
  const path = join(dir, `package-${written++}.zip`);
  writeFileSync(path, contents);
  return path;
}

async function readAll(entries: readonly ZipEntrySpec[], limits = LIMITS) {
  const files: ArchiveFile[] = [];
  const result = await readPackageArchive(zipFile(buildZip(entries)), limits, async (file) => {
    files.push(file);
  });
  return { files, result };
}

/** The PackageError reading `entries` throws, and the files handed over before it. */
async function refusal(entries: readonly ZipEntrySpec[], limits = LIMITS): Promise<{ error: PackageError; delivered: string[] }> {
  const delivered: string[] = [];
  const error: unknown = await readPackageArchive(zipFile(buildZip(entries)), limits, async (file) => {
    delivered.push(file.path);
  }).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PackageError);
  return { error: error as PackageError, delivered };
}

describe('readPackageArchive', () => {
  it('hands over each regular file in order, stored or deflated, and counts them', async () => {
    const { files, result } = await readAll([
      { name: 'tincan.xml', content: '<tincan/>', method: 'store' },
      { name: 'res/' },
      { name: 'res/index.html', content: '<html>'.repeat(1000) },
      { name: 'res/données.js', content: 'var x;' },
    ]);
    expect(files.map((file) => file.path)).toEqual(['tincan.xml', 'res/index.html', 'res/données.js']);
    expect(files[0]!.content.toString()).toBe('<tincan/>');
    expect(files[1]!.content.toString()).toBe('<html>'.repeat(1000));
    expect(result).toEqual({ files: 3, totalBytes: 9 + 6000 + 6 });
  });

  it('skips folders, __MACOSX/ and .DS_Store', async () => {
    const { files } = await readAll([
      { name: 'course/' },
      { name: 'course/.DS_Store', content: 'x' },
      { name: '__MACOSX/course/._index.html', content: 'x' },
      { name: 'course/index.html', content: 'x' },
      { name: 'course/res', externalAttributes: unixMode(0o040755) },
    ]);
    expect(files.map((file) => file.path)).toEqual(['course/index.html']);
  });

  it('reads backslashes as separators and drops `.` and empty segments', async () => {
    const { files } = await readAll([
      { name: 'res\\index.html', content: 'a' },
      { name: './story//data.js', content: 'b' },
    ]);
    expect(files.map((file) => file.path)).toEqual(['res/index.html', 'story/data.js']);
  });

  it('waits for each onFile before reading the next', async () => {
    const events: string[] = [];
    await readPackageArchive(zipFile(buildZip([{ name: 'a.txt', content: 'a' }, { name: 'b.txt', content: 'b' }])), LIMITS, async (file) => {
      events.push(`start ${file.path}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(`end ${file.path}`);
    });
    expect(events).toEqual(['start a.txt', 'end a.txt', 'start b.txt', 'end b.txt']);
  });

  it('passes on what onFile throws', async () => {
    const path = zipFile(buildZip([{ name: 'a.txt', content: 'a' }]));
    await expect(
      readPackageArchive(path, LIMITS, async () => {
        throw new Error('storage full');
      }),
    ).rejects.toThrow('storage full');
  });

  it.each([
    ['../evil.txt', '../evil.txt', 'climbs out'],
    ['course/../../evil.txt', 'course/../../evil.txt', 'climbs out'],
    ['..\\evil.txt', '../evil.txt', 'climbs out'],
    ['/etc/passwd', '/etc/passwd', 'absolute path'],
    ['\\Windows\\evil.dll', '/Windows/evil.dll', 'absolute path'],
    ['C:/Windows/evil.dll', 'C:/Windows/evil.dll', 'names a drive'],
    ['C:\\evil.txt', 'C:/evil.txt', 'names a drive'],
    ['a\u0000b.txt', 'a?b.txt', 'control character'],
  ])('refuses the entry %j before handing over any file', async (name, file, problem) => {
    const { error, delivered } = await refusal([{ name: 'index.html', content: 'ok' }, { name, content: 'pwned' }]);
    expect(error.file).toBe(file);
    expect(error.problem).toContain(problem);
    expect(error.message).toBe(`${file}: ${error.problem}`);
    expect(delivered).toEqual([]);
  });

  it('refuses a symbolic link', async () => {
    const { error, delivered } = await refusal([{ name: 'index.html', content: 'x' }, { name: 'res/link', content: '/etc/passwd', externalAttributes: SYMLINK }]);
    expect(error.file).toBe('res/link');
    expect(error.message).toBe('res/link: refused, it is a symbolic link');
    expect(delivered).toEqual([]);
  });

  it('refuses a device or other special file', async () => {
    const { error } = await refusal([{ name: 'dev/null', externalAttributes: unixMode(0o020666) }]);
    expect(error.file).toBe('dev/null');
    expect(error.problem).toContain('not a regular file');
  });

  it('refuses an encrypted entry', async () => {
    const { error, delivered } = await refusal([{ name: 'index.html', content: 'x' }, { name: 'secret.html', content: 'x'.repeat(40), flags: 1 }]);
    expect(error.message).toBe('secret.html: refused, it is encrypted');
    expect(delivered).toEqual([]);
  });

  it('refuses a compression method it cannot inflate', async () => {
    const { error } = await refusal([{ name: 'a.bz2.txt', content: 'x', method: 12 }]);
    expect(error.file).toBe('a.bz2.txt');
    expect(error.problem).toContain('compression method 12');
  });

  it('refuses a path the zip holds twice', async () => {
    const { error } = await refusal([{ name: 'index.html', content: 'a' }, { name: './index.html', content: 'b' }]);
    expect(error.file).toBe('index.html');
    expect(error.problem).toContain('twice');
  });

  it('refuses more files than the limit, before reading any', async () => {
    const entries = ['a', 'b', 'c', 'd'].map((name) => ({ name: `${name}.txt`, content: name }));
    await expect(readAll(entries, { maxFiles: 4, maxTotalBytes: 100 })).resolves.toMatchObject({ result: { files: 4 } });
    const { error, delivered } = await refusal(entries, { maxFiles: 3, maxTotalBytes: 100 });
    expect(error.file).toBe('d.txt');
    expect(error.problem).toContain('more than 3 files');
    expect(delivered).toEqual([]);
  });

  it('refuses declared sizes over the limit, before reading any', async () => {
    const entries = [
      { name: 'small.txt', content: 'x'.repeat(60) },
      { name: 'big.txt', content: 'y'.repeat(60) },
    ];
    await expect(readAll(entries, { maxFiles: 10, maxTotalBytes: 120 })).resolves.toMatchObject({ result: { totalBytes: 120 } });
    const { error, delivered } = await refusal(entries, { maxFiles: 10, maxTotalBytes: 119 });
    expect(error.file).toBe('big.txt');
    expect(error.problem).toContain('more than 119 bytes');
    expect(delivered).toEqual([]);
  });

  it('stops a zip bomb that declares a small size and inflates to far more', async () => {
    const bomb = Buffer.alloc(10_000_000);
    const { error, delivered } = await refusal([
      { name: 'index.html', content: 'fine' },
      { name: 'bomb.bin', content: bomb, declaredSize: 1000 },
    ]);
    expect(error.file).toBe('bomb.bin');
    expect(error.problem).toMatch(/does not inflate to the size it declares|more than the 1000 bytes it declares/);
    expect(delivered).toEqual(['index.html']);
  });

  it('refuses an entry that inflates to less than it declares', async () => {
    const { error } = await refusal([{ name: 'short.txt', content: 'abc', declaredSize: 10 }]);
    expect(error.file).toBe('short.txt');
    expect(error.problem).toContain('does not inflate to the size it declares');
  });

  it('refuses a file whose CRC-32 does not match', async () => {
    const { error } = await refusal([{ name: 'index.html', content: 'hello', declaredCrc: 1234 }]);
    expect(error.file).toBe('index.html');
    expect(error.problem).toContain('CRC-32');
  });

  it('refuses what is not a zip, naming no file', async () => {
    for (const contents of [Buffer.from('<html>not a zip</html>'), Buffer.alloc(0)]) {
      const path = zipFile(contents);
      const error: unknown = await readPackageArchive(path, LIMITS, async () => {}).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(PackageError);
      expect((error as PackageError).file).toBeNull();
      expect((error as PackageError).message).toMatch(/^not a zip file/);
    }
  });

  it('lets a missing file fail as the file system says, not as a package problem', async () => {
    const error: unknown = await readPackageArchive(join(dir, 'nowhere.zip'), LIMITS, async () => {}).catch((thrown: unknown) => thrown);
    expect(error).not.toBeInstanceOf(PackageError);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('safeRelativePath', () => {
  it.each([
    ['index.html', 'index.html'],
    ['res/index.html', 'res/index.html'],
    ['./res//index.html', 'res/index.html'],
    ['res\\data\\x.js', 'res/data/x.js'],
    ['res/', 'res'],
    ['..', null],
    ['../x', null],
    ['a/../b', null],
    ['a\\..\\..\\b', null],
    ['/etc/passwd', null],
    ['\\\\server\\share', null],
    ['C:/x', null],
    ['c:x', null],
    ['a\nb', null],
    ['', null],
    ['./', null],
  ])('%j → %j', (path, expected) => {
    expect(safeRelativePath(path)).toBe(expected);
  });
});
