/**
 * Reads an uploaded package zip, one regular file at a time, refusing what could escape the
 * package's folder or exhaust the service: names that climb out, symlinks, encrypted entries, and
 * more files or more bytes than the limits allow (a zip bomb included).
 *
 * The zip is read in two passes over its central directory: the first checks every entry's name,
 * type and declared size before a single byte is inflated; the second inflates the files in order,
 * counting the bytes that really come out, because the declared sizes are the attacker's to write.
 */
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { PackageError } from './package-error';

export interface ArchiveLimits {
  maxFiles: number;
  maxTotalBytes: number;
}

export interface ArchiveFile {
  /** Relative to the zip's root, forward slashes, no `.` or empty segment. */
  path: string;
  content: Buffer;
}

/** A regular file the first pass accepted, read by the second. */
interface PlannedFile {
  entry: Entry;
  path: string;
}

// The file-type bits of a Unix mode, which zips made on Unix keep in the high 16 bits of the
// external attributes.
const UNIX_TYPE_MASK = 0o170000;
const UNIX_DIRECTORY = 0o040000;
const UNIX_REGULAR = 0o100000;
const UNIX_SYMLINK = 0o120000;

const STORED = 0;
const DEFLATED = 8;

type PathCheck = { path: string } | { problem: string };

function checkPath(raw: string): PathCheck {
  // Zips written on Windows sometimes use backslashes as separators (the zip format says `/`):
  // read them as separators, so that `..\x` is caught like `../x`.
  const slashed = raw.replace(/\\/g, '/');
  for (const char of slashed) {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) return { problem: 'its name holds a control character' };
  }
  if (slashed.startsWith('/')) return { problem: 'it is an absolute path' };
  if (/^[A-Za-z]:/.test(slashed)) return { problem: 'it names a drive' };
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  // Refused even when it would stay inside (`a/../b`): no tool writes one, and it would give one
  // file two names.
  if (segments.includes('..')) return { problem: 'it climbs out of the package with ".."' };
  if (segments.length === 0) return { problem: 'its name is empty' };
  return { path: segments.join('/') };
}

/**
 * The clean relative form of `path` (forward slashes, no empty or `.` segment), or null when it is
 * absolute, names a drive, holds a `..` segment or a control character, or is empty. The zip's
 * entries pass this rule on import; the service applies it again to the paths it serves.
 */
export function safeRelativePath(path: string): string | null {
  const checked = checkPath(path);
  return 'path' in checked ? checked.path : null;
}

/** Finder and Explorer litter that no package means to ship. */
function isLitter(path: string): boolean {
  const segments = path.split('/');
  return segments[0] === '__MACOSX' || segments.at(-1) === '.DS_Store';
}

/** The entry's name as written, decoded (UTF-8 flag, Info-ZIP Unicode path field, else CP437). */
function entryName(entry: Entry): string {
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
}

/** A name fit for a message: control characters shown as `?`. */
function shown(name: string): string {
  return [...name].map((char) => (char.codePointAt(0)! < 0x20 || char === '\u007f' ? '?' : char)).join('');
}

function unixType(entry: Entry): number {
  return (entry.externalFileAttributes >>> 16) & UNIX_TYPE_MASK;
}

/** The regular file an entry holds, null for one to skip (a folder, litter); throws for one to refuse. */
function planEntry(entry: Entry): PlannedFile | null {
  const name = entryName(entry);
  const type = unixType(entry);
  // getFileNameLowLevel has already turned backslashes into slashes.
  const isDirectory = name.endsWith('/') || type === UNIX_DIRECTORY;
  const checked = checkPath(name);
  if ('problem' in checked) {
    // `./` is a harmless folder entry some zippers write.
    if (isDirectory && checked.problem === 'its name is empty') return null;
    throw new PackageError(shown(name), `refused, ${checked.problem}`);
  }
  const { path } = checked;
  if (isDirectory || isLitter(path)) return null;
  if (type === UNIX_SYMLINK) throw new PackageError(path, 'refused, it is a symbolic link');
  // Zero: a zip made elsewhere than Unix, which does not record a type.
  if (type !== 0 && type !== UNIX_REGULAR) throw new PackageError(path, 'refused, it is not a regular file');
  if (entry.isEncrypted()) throw new PackageError(path, 'refused, it is encrypted');
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
    throw new PackageError(path, `refused, it uses compression method ${entry.compressionMethod} (only stored and deflate are read)`);
  }
  return { entry, path };
}

function openZip(zipPath: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // decodeStrings off: yauzl's own name check would stop at the first bad name without saying
    // which entry it was. Names are decoded and checked in planEntry instead.
    yauzl.open(zipPath, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error === null) return resolve(zip);
      // A file that cannot be opened is the caller's problem, not the package's.
      if ('code' in error) return reject(error);
      reject(new PackageError(null, `not a zip file (${error.message})`));
    });
  });
}

/** First pass: every entry checked, the declared count and size held to the limits. */
function planArchive(zip: ZipFile, limits: ArchiveLimits): Promise<PlannedFile[]> {
  return new Promise((resolve, reject) => {
    const planned: PlannedFile[] = [];
    const seen = new Set<string>();
    let declaredBytes = 0;
    zip.on('error', (error: Error) => reject(new PackageError(null, `the zip is damaged or unsupported (${error.message})`)));
    zip.on('end', () => resolve(planned));
    zip.on('entry', (entry: Entry) => {
      try {
        const file = planEntry(entry);
        if (file !== null) {
          if (seen.has(file.path)) throw new PackageError(file.path, 'refused, the zip holds it twice');
          seen.add(file.path);
          if (planned.length + 1 > limits.maxFiles) throw new PackageError(file.path, `refused, the package holds more than ${limits.maxFiles} files`);
          declaredBytes += entry.uncompressedSize;
          if (declaredBytes > limits.maxTotalBytes) throw new PackageError(file.path, `refused, the package unpacks to more than ${limits.maxTotalBytes} bytes`);
          planned.push(file);
        }
        zip.readEntry();
      } catch (error) {
        reject(error);
      }
    });
    zip.readEntry();
  });
}

function openEntry(zip: ZipFile, file: PlannedFile): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(file.entry, (error, stream) => {
      if (error === null) resolve(stream);
      else reject(new PackageError(file.path, `cannot be read (${error.message})`));
    });
  });
}

/** Second pass, one file: inflated with its bytes counted against its declared size and the budget left. */
async function readFile(zip: ZipFile, file: PlannedFile, budgetLeft: number): Promise<Buffer> {
  const stream = await openEntry(zip, file);
  const declared = file.entry.uncompressedSize;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // yauzl's validateEntrySizes already stops a stream that outgrows its declared size; the
    // count here is the second lock, independent of it.
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > declared) throw new PackageError(file.path, `refused, it inflates to more than the ${declared} bytes it declares`);
      if (size > budgetLeft) throw new PackageError(file.path, 'refused, the package unpacks to more bytes than the limit');
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof PackageError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    // yauzl's words when the inflated size differs from the declared one (validateEntrySizes).
    if (/bytes in the stream/.test(message)) throw new PackageError(file.path, `refused, it does not inflate to the size it declares (${message})`);
    throw new PackageError(file.path, `cannot be read (${message})`);
  } finally {
    stream.destroy();
  }
  const content = Buffer.concat(chunks, size);
  // yauzl does not check the CRC; a damaged file is better refused than served.
  if (crc32(content) !== file.entry.crc32) throw new PackageError(file.path, 'is damaged, its CRC-32 does not match');
  return content;
}

/**
 * Hands each regular file of the zip at `zipPath` to `onFile`, in the zip's order, one at a time
 * (the next is inflated only once `onFile` has settled), skipping folders, `__MACOSX/` and
 * `.DS_Store`. Throws a PackageError, before calling `onFile` at all, for an entry with an unsafe
 * name, a symlink, an encrypted entry, an unsupported compression, a duplicate, or declared
 * sizes over the limits; and while reading, for an entry that inflates beyond what it declared.
 */
export async function readPackageArchive(
  zipPath: string,
  limits: ArchiveLimits,
  onFile: (file: ArchiveFile) => Promise<void>,
): Promise<{ files: number; totalBytes: number }> {
  const zip = await openZip(zipPath);
  try {
    const planned = await planArchive(zip, limits);
    let totalBytes = 0;
    for (const file of planned) {
      const content = await readFile(zip, file, limits.maxTotalBytes - totalBytes);
      totalBytes += content.length;
      await onFile({ path: file.path, content });
    }
    return { files: planned.length, totalBytes };
  } finally {
    zip.close();
  }
}
