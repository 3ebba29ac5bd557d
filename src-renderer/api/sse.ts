export { createSseParser,  } from '../../src-server/admin/sse-parser';

/** Delay before reconnect attempt `attempt` (0-based): doubling from 500 ms, capped at 15 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(15_000, 500 * 2 ** Math.max(0, attempt));
}
