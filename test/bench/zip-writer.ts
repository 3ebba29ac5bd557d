/**
 * A tiny zip writer for the tests: it writes what a test asks for, however hostile (names that
 * climb out, symlinks, encrypted flags, sizes that lie), which no real zipper would.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntrySpec {
  /** Written as is (UTF-8 with the UTF-8 flag), or raw bytes. */
  name: string | Buffer;
  content?: string | Buffer;
  method?: 'store' | 'deflate' | number;
  /** The 32-bit external attributes; by default a Unix regular file (0644), or folder for a name ending in `/`. */
  externalAttributes?: number;
  /** Extra general-purpose flag bits (1: encrypted). */
  flags?: number;
  /** The uncompressed size to declare, when it should lie. */
  declaredSize?: number;
  /** The CRC-32 to declare, when it should lie. */
  declaredCrc?: number;
}

const MADE_BY_UNIX = (3 << 8) | 20;
const UTF8_FLAG = 0x800;

export const unixMode = (mode: number): number => (mode << 16) >>> 0;
const REGULAR_FILE = unixMode(0o100644);
export const SYMLINK = unixMode(0o120777);
const DIRECTORY = unixMode(0o040755) | 0x10;

function methodNumber(method: ZipEntrySpec['method']): number {
  if (method === undefined || method === 'deflate') return 8;
  if (method === 'store') return 0;
  return method;
}

/** The bytes of a zip holding `entries`, in order, with a central directory and no comment. */
export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const spec of entries) {
    const name = typeof spec.name === 'string' ? Buffer.from(spec.name, 'utf8') : spec.name;
    const content = typeof spec.content === 'string' ? Buffer.from(spec.content, 'utf8') : (spec.content ?? Buffer.alloc(0));
    const method = methodNumber(spec.method);
    const data = method === 8 ? deflateRawSync(content) : content;
    const flags = (typeof spec.name === 'string' ? UTF8_FLAG : 0) | (spec.flags ?? 0);
    const crc = spec.declaredCrc ?? crc32(content);
    const size = spec.declaredSize ?? content.length;
    const isFolder = name.at(-1) === 0x2f;
    const external = spec.externalAttributes ?? (isFolder ? DIRECTORY : REGULAR_FILE);

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(0x21, 12); // date: 1980-01-01
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // extra length
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(MADE_BY_UNIX, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30); // extra length
    central.writeUInt16LE(0, 32); // comment length
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE(external >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0, 4);
  end.writeUInt16LE(0, 6);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(0, 20);
  return Buffer.concat([...locals, directory, end]);
}
