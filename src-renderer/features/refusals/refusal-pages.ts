import type { RefusalPageView } from '../../../src-server/admin/contract';

type Refusal = RefusalPageView['refusals'][number];

/**
 * The refused requests a log view has loaded: the live first page, asked again as refusals
 * arrive, and the older pages "Show more" added. An entry never changes once logged and ids grow
 * with time, so pages merge by id; an entry a newer first page pushed past its end stays shown.
 */
export interface LoadedRefusals {
  /** Newest first, each id once. */
  refusals: Refusal[];
  /** The cursor of the page below the oldest entry shown; null when the log has nothing older. */
  next: string | null;
}

export const NO_REFUSALS_LOADED: LoadedRefusals = { refusals: [], next: null };

/** Adds one page (the first page again, or an older one) to what is shown. */
export function withPage(loaded: LoadedRefusals, page: RefusalPageView): LoadedRefusals {
  const byId = new Map(loaded.refusals.map((refusal) => [refusal.id, refusal]));
  for (const refusal of page.refusals) byId.set(refusal.id, refusal);
  const refusals = [...byId.values()].sort((a, b) => b.id - a.id);
  // Only a page that reaches as far down as what is shown knows whether anything older remains.
  const oldestShown = loaded.refusals.at(-1)?.id;
  const oldestOfPage = page.refusals.at(-1)?.id;
  const reachesBottom = oldestShown === undefined || (oldestOfPage !== undefined && oldestOfPage <= oldestShown) || page.refusals.length === 0;
  return { refusals, next: reachesBottom ? page.next : loaded.next };
}
