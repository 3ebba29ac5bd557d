/** How the console writes times, durations and sizes. Pure: `now` is a parameter. */

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "3 minutes ago", "in 7 days", "just now". */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const diff = Date.parse(iso) - now.getTime();
  if (Number.isNaN(diff)) return iso;
  if (Math.abs(diff) < 10_000) return 'just now';
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === 'second') return format.format(Math.round(diff / ms), unit);
  }
  return iso;
}

/** "6 days 23 hours left", "2 hours left", "expired". */
export function timeLeft(iso: string, now: Date = new Date()): string {
  const diff = Date.parse(iso) - now.getTime();
  if (Number.isNaN(diff)) return iso;
  if (diff <= 0) return 'expired';
  const days = Math.floor(diff / 86_400_000);
  const hours = Math.floor((diff % 86_400_000) / 3_600_000);
  const minutes = Math.floor((diff % 3_600_000) / 60_000);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (days > 0) return `${plural(days, 'day')}${hours > 0 ? ` ${plural(hours, 'hour')}` : ''} left`;
  if (hours > 0) return `${plural(hours, 'hour')}${minutes > 0 ? ` ${plural(minutes, 'minute')}` : ''} left`;
  return `${plural(Math.max(1, minutes), 'minute')} left`;
}

/** "24 hours", "15 minutes", "30 seconds", "1 day 12 hours": a span of time in words. */
export function duration(ms: number): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000) * 1000;
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(plural(count, unit));
    rest -= count * size;
    if (parts.length === 2) break;
  }
  return parts.length > 0 ? parts.join(' ') : plural(0, 'second');
}

export function dateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

export function bytes(count: number): string {
  if (count < 1024) return `${count} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = count / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A `datetime-local` input's value (local time, no zone) as an ISO instant; undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An ISO instant as a `datetime-local` input's value (local time, to the minute); empty when it is none. */
export function isoToLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}
