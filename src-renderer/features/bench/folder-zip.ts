/**
 * A published course's folder, picked in the console, as the zip the Test Bench imports: stored
 * (not compressed: a course's media is compressed already, and the service only reads it once),
 * paths relative to the folder picked. The service checks every entry as it does any zip.
 */

/** A file the folder picker gave: its path below the folder picked, and how to read it. */
export interface PickedFile {
  /** `webkitRelativePath`: the picked folder's name first, e.g. `course/index.html`. */
  path: string;
  bytes: () => Promise<ArrayBuffer>;
}

function crcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

function crc32(bytes: Uint8Array, table: Uint32Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The folder's files below its own name (the zip's root is the folder's inside). */
function insideFolder(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(slash + 1);
}

/** The zip of `files` (ZIP 2.0, stored, UTF-8 names): a Blob to send as application/zip. */
export async function zipFolder(files: readonly PickedFile[]): Promise<Blob> {
  const table = crcTable();
  const encoder = new TextEncoder();
  const parts: Array<ArrayBuffer | Uint8Array<ArrayBuffer>> = [];
  const central: Array<Uint8Array<ArrayBuffer>> = [];
  let offset = 0;
  for (const file of files) {
    const name = encoder.encode(insideFolder(file.path));
    const data = new Uint8Array(await file.bytes());
    const crc = crc32(data, table);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, 0x0800, true); // names in UTF-8
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    parts.push(local.buffer, name, data);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, 0x0800, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, data.length, true);
    entry.setUint32(24, data.length, true);
    entry.setUint16(28, name.length, true);
    entry.setUint32(42, offset, true);
    central.push(new Uint8Array(entry.buffer), name);
    offset += 30 + name.length + data.length;
  }
  const centralBytes = central.reduce((sum, part) => sum + part.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, centralBytes, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end.buffer], { type: 'application/zip' });
}
