/** Flag parsing shared by the suite runners: `--name value` numbers and `--flag` booleans. */
import { parseArgs } from 'node:util';

export function suiteArgs<T extends Record<string, 'number' | 'boolean'>>(
  spec: T,
): { [K in keyof T]: T[K] extends 'number' ? number | undefined : boolean } {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: Object.fromEntries(Object.entries(spec).map(([name, kind]) => [name, { type: kind === 'number' ? 'string' : 'boolean' }])),
    strict: true,
  });
  const out: Record<string, number | boolean | undefined> = {};
  for (const [name, kind] of Object.entries(spec)) {
    const value = values[name];
    if (kind === 'boolean') out[name] = value === true;
    else if (value !== undefined) {
      const n = Number(value);
      if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${String(value)}`);
      out[name] = n;
    }
  }
  return out as { [K in keyof T]: T[K] extends 'number' ? number | undefined : boolean };
}

/** Prints the summary and sets the exit code; a suite that throws fails too. */
export async function runSuite(run: () => Promise<{ ok: boolean; summary: string }>): Promise<void> {
  try {
    const report = await run();
    console.log(report.summary);
    process.exitCode = report.ok ? 0 : 1;
  } catch (error) {
    console.error(`suite failed to run: ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 2;
  }
}
