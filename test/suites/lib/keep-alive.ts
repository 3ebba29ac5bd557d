/**
 * A keep-alive connection pool for plain `fetch`, without an extra dependency: Node's fetch is
 * undici, and its global dispatcher (an undici Agent, created on the first fetch) is registered
 * under a well-known symbol; its constructor is the Agent class, so a pool with our own limits
 * costs nothing. Falls back to the global dispatcher (keep-alive too, with defaults).
 */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

export interface Dispatcher {
  close(): Promise<void>;
}

export async function keepAliveDispatcher(warmUpUrl: string, connections: number): Promise<Dispatcher | undefined> {
  await fetch(warmUpUrl).then((response) => response.arrayBuffer()).catch(() => undefined);
  const global = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as { constructor?: unknown } | undefined;
  const Agent = global?.constructor as (new (options: object) => Dispatcher) | undefined;
  if (typeof Agent !== 'function' || Agent.name !== 'Agent') return undefined;
  return new Agent({ connections, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, pipelining: 1 });
}

/** fetch with the pool; `dispatcher` is undici's option, not in lib.dom's RequestInit. */
export function fetchWith(dispatcher: Dispatcher | undefined, url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, dispatcher ? ({ ...init, dispatcher } as RequestInit) : init);
}
