/**
 * The `stored` time of statements. xAPI orders statement results by `stored`; the service hands out
 * times that never go backwards, even when the system clock does, so that `since`/`until` and
 * paging by receipt order agree.
 *
 * A statement write holds its stamp "in flight" from the moment it is stamped until its write has
 * resolved (stored and visible, or refused): X-Experience-API-Consistent-Through never passes the
 * earliest stamp in flight (`floorMs`), since that statement may still become visible.
 */
export interface Stamp {
  at: Date;
  /** The write is over: stored and visible, or refused. Idempotent. */
  release(): void;
}

export class StoredClock {
  private last = 0;
  /** Stamps in flight: ms → how many writes hold it. */
  private readonly inFlight = new Map<number, number>();

  now(): Date {
    const current = Date.now();
    this.last = Math.max(this.last, current);
    return new Date(this.last);
  }

  /** A stored time for a statement write, in flight until released. */
  stamp(): Stamp {
    const at = this.now();
    const ms = at.getTime();
    this.inFlight.set(ms, (this.inFlight.get(ms) ?? 0) + 1);
    let released = false;
    return {
      at,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.inFlight.get(ms) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(ms);
        else this.inFlight.set(ms, left);
      },
    };
  }

  /** No statement this process is still writing has a stored time below this one: now, or the earliest stamp in flight. */
  floorMs(): number {
    let floor = this.now().getTime();
    for (const ms of this.inFlight.keys()) if (ms < floor) floor = ms;
    return floor;
  }
}
