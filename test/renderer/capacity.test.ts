import { describe, expect, it } from 'vitest';
import { capacityBadgeLabel, capacityPercent, capacityView, percentText } from '../../src-renderer/features/connection/capacity';

const GiB = 1024 ** 3;

describe('database capacity as the console words it', () => {
  it('computes the share used, bounded to 0–100 and safe with an unknown limit', () => {
    expect(capacityPercent({ usedBytes: 0.8 * 2 * GiB, limitBytes: 2 * GiB })).toBe(80);
    expect(capacityPercent({ usedBytes: 1234, limitBytes: 2 * GiB })).toBe(0);
    expect(capacityPercent({ usedBytes: 3 * GiB, limitBytes: 2 * GiB })).toBe(100);
    expect(capacityPercent({ usedBytes: 10, limitBytes: 0 })).toBe(0);
  });

  it('writes small shares with a decimal and larger ones whole', () => {
    expect(percentText(0.4)).toBe('0.4%');
    expect(percentText(0)).toBe('0%');
    expect(percentText(81.6)).toBe('82%');
  });

  it('shows used of limit in human units, with no note when all is well', () => {
    const view = capacityView({ usedBytes: 300 * 1024 ** 2, limitBytes: 2 * GiB, state: 'ok' });
    expect(view.summary).toBe('300 MB of 2.0 GB (15%)');
    expect(view.color).toBe('teal');
    expect(view.note).toBeUndefined();
  });

  it('warns in yellow from 80% and says what to do', () => {
    const view = capacityView({ usedBytes: 1.7 * GiB, limitBytes: 2 * GiB, state: 'warning' });
    expect(view.summary).toBe('1.7 GB of 2.0 GB (85%)');
    expect(view.note).toMatchObject({ color: 'yellow' });
    expect(view.note?.text).toMatch(/test Stores/);
    expect(view.note?.text).toMatch(/backup/);
    expect(view.note?.text).toMatch(/PostgreSQL/);
  });

  it('says in red that writes are refused when full', () => {
    const view = capacityView({ usedBytes: 1.95 * GiB, limitBytes: 2 * GiB, state: 'full' });
    expect(view.color).toBe('red');
    expect(view.note?.color).toBe('red');
    expect(view.note?.text).toMatch(/507/);
    expect(view.note?.text).toMatch(/delet/);
  });

  it('labels the header badge only for warning and full', () => {
    expect(capacityBadgeLabel(undefined)).toBeUndefined();
    expect(capacityBadgeLabel({ usedBytes: 1, limitBytes: 2, state: 'ok' })).toBeUndefined();
    expect(capacityBadgeLabel({ usedBytes: 82, limitBytes: 100, state: 'warning' })).toBe('Database 82% full');
    expect(capacityBadgeLabel({ usedBytes: 97, limitBytes: 100, state: 'full' })).toBe('Database full (97%)');
  });
});
