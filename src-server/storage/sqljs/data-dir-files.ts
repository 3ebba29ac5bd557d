/** The names of the files a data directory holds besides the journal (../README.md, "A data directory holds"). */

/** The last snapshot: an ordinary SQLite file. */
export const SNAPSHOT_FILE = 'lore.sqlite';
/** A whole snapshot being written; renamed over SNAPSHOT_FILE once durable. */
export const SNAPSHOT_TEMP_FILE = 'lore.sqlite.tmp';
/** A snapshot's changed pages, complete and durable, to be written into SNAPSHOT_FILE (snapshot-pages.ts). */
export const SNAPSHOT_PAGES_FILE = 'lore.sqlite.pages';
/** The changed pages being written; renamed to SNAPSHOT_PAGES_FILE once durable. */
export const SNAPSHOT_PAGES_TEMP_FILE = 'lore.sqlite.pages.tmp';
/** Written and fsynced to learn whether the disk takes writes again (a full disk does not). */
export const PROBE_FILE = 'lore.probe';
/** A checksum per page of SNAPSHOT_FILE, checked at open (snapshot-sums.ts). */
export const SNAPSHOT_SUMS_FILE = 'lore.sqlite.sums';
/** The sums being written; renamed to SNAPSHOT_SUMS_FILE once durable. */
export const SNAPSHOT_SUMS_TEMP_FILE = 'lore.sqlite.sums.tmp';
