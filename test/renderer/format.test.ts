import { describe, expect, it } from 'vitest';
import { bytes, duration, localInputToIso, relativeTime, timeLeft } from '../../src-renderer/ui/format';

const now = new Date('2026-11-21T12:00:00Z');

describe('console formats', () => {
  it('writes a span of time in words, at most two units', () => {
    expect(duration(86_400_000)).toBe('1 day');
    expect(duration(2 * 3_600_000)).toBe('2 hours');
    expect(duration(15 * 60_000)).toBe('15 minutes');
    expect(duration(30_000)).toBe('30 seconds');
    expect(duration(36 * 3_600_000 + 61_000)).toBe('1 day 12 hours');
    expect(duration(0)).toBe('0 seconds');
  });

  it('writes relative times in the past and the future', () => {
    expect(relativeTime('2026-11-21T11:57:00Z', now)).toBe('3 minutes ago');
    expect(relativeTime('2026-11-28T12:00:00Z', now)).toBe('in 7 days');
    expect(relativeTime('2026-11-21T11:59:58Z', now)).toBe('just now');
  });

  it('writes the validity left of a key about to expire', () => {
    expect(timeLeft('2026-11-28T11:00:00Z', now)).toBe('6 days 23 hours left');
    expect(timeLeft('2026-11-21T14:30:00Z', now)).toBe('2 hours 30 minutes left');
    expect(timeLeft('2026-11-21T12:00:30Z', now)).toBe('1 minute left');
    expect(timeLeft('2026-11-21T11:00:00Z', now)).toBe('expired');
  });

  it('writes sizes in binary units', () => {
    expect(bytes(512)).toBe('512 B');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(bytes(300 * 1024 * 1024)).toBe('300 MB');
  });

  it('reads an empty datetime-local value as no bound', () => {
    expect(localInputToIso('')).toBeUndefined();
    expect(localInputToIso('2026-11-21T10:00')).toMatch(/^2026-11-2\dT\d\d:00:00\.000Z$/);
  });
});
