/**
 * How the console words the database's capacity (GET /admin/api/status → capacity). Pure: the
 * Connection screen's card and the header's badge both render from `capacityView`.
 */
import type { ServiceStatusView } from '../../../src-server/admin/contract';
import { bytes } from '../../ui/format';

export type Capacity = NonNullable<ServiceStatusView['capacity']>;

interface CapacityNote {
  color: 'yellow' | 'red';
  title: string;
  text: string;
}

export interface CapacityView {
  /** 0–100, rounded to one decimal; 0 when the limit is unknown. */
  percent: number;
  /** "1.6 GB of 2.0 GB (80%)" */
  summary: string;
  /** Progress bar colour. */
  color: 'teal' | 'yellow' | 'red';
  /** What to do, for `warning` and `full`; none when all is well. */
  note?: CapacityNote;
}

const WHAT_TO_DO =
  'Make room by emptying or deleting test Stores and Stores no longer needed (take a backup first), or move to a larger deployment: see "Capacity, and when to move to PostgreSQL" in the README.';

/** Share of the limit used, 0–100 with one decimal. */
export function capacityPercent(capacity: Pick<Capacity, 'usedBytes' | 'limitBytes'>): number {
  if (!(capacity.limitBytes > 0)) return 0;
  const percent = (capacity.usedBytes / capacity.limitBytes) * 100;
  return Math.min(100, Math.max(0, Math.round(percent * 10) / 10));
}

/** "80%", "0.4%", "100%": one decimal below 10%, whole numbers above. */
export function percentText(percent: number): string {
  return percent > 0 && percent < 10 ? `${percent.toFixed(1)}%` : `${Math.round(percent)}%`;
}

export function capacityView(capacity: Capacity): CapacityView {
  const percent = capacityPercent(capacity);
  const summary = `${bytes(capacity.usedBytes)} of ${bytes(capacity.limitBytes)} (${percentText(percent)})`;
  switch (capacity.state) {
    case 'full':
      return {
        percent,
        summary,
        color: 'red',
        note: {
          color: 'red',
          title: 'The database is full: new statements are refused',
          text: `Statements, rejections and documents are refused with 507 until there is room again; reading, Stores, keys and deletions still work. ${WHAT_TO_DO}`,
        },
      };
    case 'warning':
      return {
        percent,
        summary,
        color: 'yellow',
        note: {
          color: 'yellow',
          title: 'The database is filling up',
          text: `At 95% new statements will be refused. ${WHAT_TO_DO}`,
        },
      };
    default:
      return { percent, summary, color: 'teal' };
  }
}

/** The header badge's words, or undefined when there is nothing to warn about. */
export function capacityBadgeLabel(capacity: Capacity | undefined): string | undefined {
  if (!capacity || capacity.state === 'ok') return undefined;
  const percent = percentText(capacityPercent(capacity));
  return capacity.state === 'full' ? `Database full (${percent})` : `Database ${percent} full`;
}
