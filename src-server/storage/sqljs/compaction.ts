/**
 * Background snapshots: the image for journal record J built from the files on disk (the last
 * snapshot and the journal files the writer has moved on from), not from the live database, so
 * the service goes on answering while it is built. `db.export()` of the live database blocks the
 * event loop for the whole copy, about 1.6 s per GB: a stall every snapshot once a Store is large.
 *
 * Replay is deterministic (every value is decided before a record is journaled), so the image
 * equals what the live database held at J. The cost moves elsewhere: a second copy of the
 * database in memory while the image is built, and the replay's CPU, in another process or thread
 * (compaction-worker.ts). The durable layer takes background snapshots only for a database large
 * enough to stall (DurableDatabase, backgroundSnapshotMinBytes); close(), snapshot() and backups
 * still export the live database.
 */
import path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { StorageFs } from './fs';
import { writeFileDurably } from './fs';
import { flushPendingIngestion } from './ingestion';
import { loadDatabase } from './load-database';
import { writeMeta } from './schema';

export interface CompactionJob {
  dataDir: string;
  /** The journal files the image covers (all the journal files but the one being written). */
  files: string[];
  /** The last record the image holds. */
  upToSeq: number;
  /** Where the image goes, durably (the caller renames it over the snapshot). */
  tempPath: string;
}

/** Runs a job somewhere (a child process or a worker thread in the service; in process in tests). */
export type Compactor = (job: CompactionJob) => Promise<void>;

/** Builds the image of `job` and writes it durably to `job.tempPath`. Changes nothing else on disk. */
export async function compact(SQL: SqlJsStatic, fs: StorageFs, job: CompactionJob): Promise<void> {
  const loaded = await loadDatabase({
    SQL,
    fs,
    dataDir: path.resolve(job.dataDir),
    log: () => {},
    durableSizes: new Map(),
    replayOnly: { files: job.files, upToSeq: job.upToSeq },
  });
  const { state } = loaded;
  let image: Uint8Array;
  try {
    flushPendingIngestion(state.sql, state.ingestion);
    writeMeta(state.sql, { journalSeq: job.upToSeq, lastSeq: state.lastSeq });
    image = state.sql.db.export();
  } finally {
    state.sql.close();
  }
  await writeFileDurably(fs, job.tempPath, image);
}
