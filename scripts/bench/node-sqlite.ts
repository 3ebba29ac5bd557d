/**
 * node:sqlite's DatabaseSync (the SQLite compiled into Node: 22.13 and later without a flag), for
 * the benchmarks that set the native engine beside sql.js; null when this Node has none. Loaded by
 * name at run time: the service never depends on it, and older Nodes lack it. `T` is the shape of
 * the constructor the caller uses.
 */
export async function loadDatabaseSync<T>(): Promise<T | null> {
  try {
    return ((await import('node:' + 'sqlite')) as { DatabaseSync: T }).DatabaseSync;
  } catch {
    return null;
  }
}
