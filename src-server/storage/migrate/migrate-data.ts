/**
 * Moves everything a deployment holds between the embedded database (a data directory) and
 * PostgreSQL, either way (`npm run migrate`): streams the source's portable records (portable.ts)
 * into the target, then reads the target back the same way and compares, per kind of row, the
 * count and an order-independent checksum. The source is only read. A target that holds any Store
 * is refused unless `intoNonEmpty` is set.
 */
import type { PortableRecord, TableSummary } from '../portable';
import { importRecords, summarize } from '../portable';
import { openPostgresStorage } from '../postgres/postgres-storage';
import { openSqljsStorage } from '../sqljs/sqljs-storage';
import type { Storage } from '../storage';

export interface MigrateOptions {
  /** A data directory, or postgres://… */
  from: string;
  to: string;
  intoNonEmpty?: boolean;
  log?: (message: string) => void;
}

export interface MigrateReport {
  tables: Array<{ kind: string; source: TableSummary; target: TableSummary; ok: boolean }>;
  ok: boolean;
}

type Exporting = Storage & { exportRecords(): AsyncIterable<PortableRecord> };

function isDatabaseUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

async function open(location: string): Promise<Exporting> {
  return isDatabaseUrl(location) ? openPostgresStorage({ url: location, poolSize: 4 }) : openSqljsStorage({ dataDir: location });
}

export class TargetNotEmptyError extends Error {
  constructor(stores: number) {
    super(`the target already holds ${stores} Store${stores === 1 ? '' : 's'}; migrate into an empty one, or pass --into-non-empty to add to it`);
    this.name = 'TargetNotEmptyError';
  }
}

export async function migrateData(options: MigrateOptions): Promise<MigrateReport> {
  const log = options.log ?? (() => {});
  const source = await open(options.from);
  let target: Exporting | null = null;
  try {
    target = await open(options.to);
    const existing = (await target.listStores()).length;
    if (existing > 0 && !options.intoNonEmpty) throw new TargetNotEmptyError(existing);
    let statements = 0;
    const started = performance.now();
    const written = await importRecords(target, source.exportRecords(), (record) => {
      if (record.t !== 'statements') return;
      const before = statements;
      statements += record.rows.length;
      if (Math.floor(statements / 50_000) > Math.floor(before / 50_000)) log(`${statements.toLocaleString('en-US')} statements copied (${Math.round((performance.now() - started) / 1000)} s)`);
    });
    log(`copied in ${Math.round((performance.now() - started) / 1000)} s; reading the target back to compare`);
    const sourceTables = written.tables();
    const targetTables = (await summarize(target.exportRecords())).tables();
    const kinds = [...new Set([...Object.keys(sourceTables), ...Object.keys(targetTables)])].sort();
    const none: TableSummary = { rows: 0, checksum: '-' };
    const tables = kinds.map((kind) => {
      const s = sourceTables[kind] ?? none;
      const t = targetTables[kind] ?? none;
      // Into a non-empty target, the target holds more: its counts are at least the source's.
      const ok = options.intoNonEmpty && existing > 0 ? t.rows >= s.rows : s.rows === t.rows && s.checksum === t.checksum;
      return { kind, source: s, target: t, ok };
    });
    return { tables, ok: tables.every((table) => table.ok) };
  } finally {
    await target?.close();
    await source.close();
  }
}

/** The report as a table for a terminal. */
export function formatMigrateReport(report: MigrateReport): string {
  const lines = ['kind           source rows  target rows  source checksum   target checksum   ', '-'.repeat(82)];
  for (const t of report.tables) {
    lines.push(
      `${t.kind.padEnd(14)} ${String(t.source.rows).padStart(11)}  ${String(t.target.rows).padStart(11)}  ${t.source.checksum.padEnd(16)}  ${t.target.checksum.padEnd(16)}  ${t.ok ? 'ok' : 'DIFFERENT'}`,
    );
  }
  lines.push(report.ok ? 'verified: the target holds everything the source held.' : 'NOT VERIFIED: the target differs from the source (see above).');
  return lines.join('\n');
}
