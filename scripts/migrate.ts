/**
 * `npm run migrate -- --from <data-dir | postgres://…> --to <postgres://… | data-dir> [--into-non-empty]`
 *
 * Moves everything a deployment holds between the embedded database and PostgreSQL, either way,
 * and verifies it: counts and a checksum per kind of row, printed as a table. Stop the service
 * first (a data directory is locked while one runs on it). Exit code 0 when verified, 1 when the
 * target differs, 2 when it could not run (usage, a locked directory, a non-empty target).
 */
import { parseArgs } from 'node:util';
import { formatMigrateReport, migrateData } from '../src-server/storage/migrate/migrate-data';

const USAGE = 'usage: npm run migrate -- --from <data-dir | postgres://…> --to <postgres://… | data-dir> [--into-non-empty]';

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' }, 'into-non-empty': { type: 'boolean' } }, strict: true }));
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!values.from || !values.to) {
    console.error(USAGE);
    return 2;
  }
  try {
    const report = await migrateData({ from: values.from, to: values.to, intoNonEmpty: values['into-non-empty'] === true, log: (line) => console.error(line) });
    console.log(formatMigrateReport(report));
    return report.ok ? 0 : 1;
  } catch (err) {
    console.error(`the migration did not run to its end: ${(err as Error).message}`);
    return 2;
  }
}

process.exitCode = await main();
