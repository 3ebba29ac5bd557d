/**
 * The `stored` time of statements. xAPI orders statement results by `stored`; the service hands out
 * times that never go backwards, even when the system clock does, so that `since`/`until` and
 * paging by receipt order agree.
 */
export class StoredClock {
  private last = 0;

  now(): Date {
    const current = Date.now();
    this.last = Math.max(this.last, current);
    return new Date(this.last);
  }
}
