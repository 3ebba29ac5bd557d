/**
 * The command line of the data-directory commands (repair, check-data, restore): their flags,
 * `--data-dir` (or LRS_DATA_DIR) required. Bad usage prints the message and the usage; the caller
 * exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type CommandValues = Record<string, string | boolean | undefined>;

export function readDataDirCommand(usage: string, options: NonNullable<ParseArgsConfig['options']>): { ok: true; dataDir: string; values: CommandValues } | { ok: false } {
  let values: CommandValues;
  try {
    values = parseArgs({ options: { ...options, 'data-dir': { type: 'string' } }, strict: true }).values as CommandValues;
  } catch (err) {
    console.error(`${(err as Error).message}\n${usage}`);
    return { ok: false };
  }
  const flag = values['data-dir'];
  const dataDir = typeof flag === 'string' ? flag : process.env.LRS_DATA_DIR;
  if (!dataDir) {
    console.error(`--data-dir is required.\n${usage}`);
    return { ok: false };
  }
  return { ok: true, dataDir, values };
}
