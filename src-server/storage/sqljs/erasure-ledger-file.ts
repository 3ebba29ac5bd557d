/**
 * The erasure ledger kept a second time, outside the database: `erasures.jsonl` in the data
 * directory, one JSON entry a line, appended and fsynced after each erasure. A restore replaces the
 * database (snapshot and journal) and never this file, so the next open finds the erasures the
 * restored image does not hold and applies them again (sqljs-storage.ts, reapplyErasures). Entries
 * hold salted hashes only, like the table. A line a crash cut short is skipped; an entry the file
 * missed (a crash between the journal's fsync and the file's) is appended again at the next open.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { ErasureRecord } from '../erasure';

export const ERASURE_LEDGER_FILE = 'erasures.jsonl';

/** The entries the file holds, in order; none when it does not exist. */
export async function readErasureLedgerFile(dataDir: string): Promise<ErasureRecord[]> {
  const text = await fsp.readFile(path.join(dataDir, ERASURE_LEDGER_FILE), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const entries: ErasureRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as ErasureRecord;
      if (typeof entry.id === 'string' && typeof entry.salt === 'string' && Array.isArray(entry.ifiHashes)) entries.push(entry);
    } catch {
      // A line a crash cut short: its erasure is in the journal, and the next open appends it again.
    }
  }
  return entries;
}

/** Appends entries durably (write, fdatasync; the directory too when the file is new). */
export async function appendErasureLedgerFile(dataDir: string, entries: readonly ErasureRecord[]): Promise<void> {
  if (entries.length === 0) return;
  const file = path.join(dataDir, ERASURE_LEDGER_FILE);
  const existed = await fsp.stat(file).then(
    (stat) => stat.size,
    () => null,
  );
  const handle = await fsp.open(file, 'a');
  try {
    // A torn last line (a crash mid-append) gets its line ended, so the next entry reads whole.
    const lead = existed !== null && existed > 0 && (await lastByte(file, existed)) !== '\n' ? '\n' : '';
    await handle.write(lead + entries.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (existed === null) {
    const dir = await fsp.open(dataDir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }
}

async function lastByte(file: string, size: number): Promise<string> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = Buffer.alloc(1);
    await handle.read(buffer, 0, 1, size - 1);
    return buffer.toString('latin1');
  } finally {
    await handle.close();
  }
}
