/** The embedded Storage: sql.js in memory, made durable by a journal and snapshots (see ../README.md). */
export { openSqljsStorage, SqljsStorage, SNAPSHOT_FILE, DataDirLockedError, StorageUnavailableError } from './sqljs-storage';
export type { SqljsStorageOptions } from './sqljs-storage';
export { nodeStorageFs } from './fs';
export type { StorageFs, StorageFileHandle } from './fs';
export { StorageNotFoundError, StorageDuplicateError } from '../errors';
