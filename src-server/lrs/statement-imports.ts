/**
 * Recording statements that another LRS stored (docs/import.md): a pull from it or an NDJSON file of
 * an export. Each statement is validated as strictly as one a client sends, then kept as the source
 * had it: its id, timestamp, `stored` and authority are not replaced (prepareStatement is handed the
 * source's `stored` and authority instead of this service's). A statement invalid here, or
 * conflicting with one the Store holds under its id, is counted and reported, never stored; one the
 * Store already holds unchanged is "already present", so importing twice changes nothing.
 */
import type { ImportProblem, StatementRow, Storage, StoreRecord } from '../storage/storage';
import { extractActivityDefinitions } from '../xapi/activity-definitions';
import { prepareStatement } from '../xapi/prepare-statement';
import { VOIDED_VERB_ID, type Agent, type Group } from '../xapi/statement-schema';
import { validateStatements } from '../xapi/validate-statements';
import type { XapiVersion } from '../xapi/version';
import { statementRowOf } from './statement-row';
import type { RecordedStatementListener } from './statement-writes';

export interface StatementImportContext {
  storage: Storage;
  store: StoreRecord;
  /** What the rows record as the key that sent them: the import (`import:<job id>`), since no API key did. */
  keyId: string;
  /** The authority of a statement the source returned without one (a source that breaks §2.4.9). */
  fallbackAuthority: Agent | Group;
  /** The `stored` of a statement the source returned without one. */
  now: () => Date;
  /** The console's live events: imported statements are announced as any others. */
  events: RecordedStatementListener;
}

/** One statement read from the source; `line`: its line in an NDJSON file. */
export interface ImportItem {
  statement: unknown;
  line?: number;
}

export interface ImportBatchResult {
  imported: number;
  alreadyPresent: number;
  /** Imported statements that void another. */
  voided: number;
  /** Statements read from the source beyond the batch: voided targets fetched (`fetchVoidedTarget`). */
  extraRead: number;
  problems: ImportProblem[];
  /** The last statement of the batch the Store now holds (imported or already present), in the batch's order. */
  last: { stored: string; statementId: string } | null;
}

export interface ImportBatchOptions {
  /**
   * The statement a voiding statement voids, from the source, when the Store does not hold it yet:
   * a source lists no voided statement (xAPI §2.1.3), so it is asked for by id and imported first,
   * and ends up voided here too. Null: the source does not have it either.
   */
  fetchVoidedTarget?: (statementId: string) => Promise<unknown>;
}

/** Imports `items` in their order: the source's stored order becomes the Store's order (seqs). */
export async function importStatements(ctx: StatementImportContext, items: readonly ImportItem[], options: ImportBatchOptions = {}): Promise<ImportBatchResult> {
  const result: ImportBatchResult = { imported: 0, alreadyPresent: 0, voided: 0, extraRead: 0, problems: [], last: null };
  const rows: Array<{ row: StatementRow; item: ImportItem }> = [];
  const inBatch = new Map<string, StatementRow>();
  for (const item of items) {
    const prepared = prepareImported(ctx, item);
    if ('problem' in prepared) {
      result.problems.push(prepared.problem);
      continue;
    }
    const { row } = prepared;
    if (row.voidsStatementId !== null) {
      const target = inBatch.get(row.voidsStatementId) ?? (await ctx.storage.findStatement(ctx.store.id, row.voidsStatementId));
      const targetStatement = target && 'statement' in target ? target.statement : undefined;
      if (isVoiding(targetStatement)) {
        result.problems.push(problemOf(item, row.statementId, 'invalid', 'A voiding statement cannot void another voiding statement (object.id).'));
        continue;
      }
      if (!target && options.fetchVoidedTarget) {
        const fetched = await options.fetchVoidedTarget(row.voidsStatementId);
        if (fetched !== null && fetched !== undefined) {
          result.extraRead += 1;
          // What comes before this row is written first, so the target gets the lower seq.
          await insertInOrder(ctx, rows, result);
          rows.length = 0;
          merge(result, await importStatements(ctx, [{ statement: fetched }]));
          result.last = null; // the target is not a position in the source's listing
        }
      }
    }
    inBatch.set(row.statementId, row);
    rows.push({ row, item });
  }
  await insertInOrder(ctx, rows, result);
  return result;
}

function merge(into: ImportBatchResult, from: ImportBatchResult): void {
  into.imported += from.imported;
  into.alreadyPresent += from.alreadyPresent;
  into.voided += from.voided;
  into.extraRead += from.extraRead;
  into.problems.push(...from.problems);
}

/** Inserts the rows as one batch; a conflict takes its row out and the rest is tried again. */
async function insertInOrder(ctx: StatementImportContext, pending: ReadonlyArray<{ row: StatementRow; item: ImportItem }>, result: ImportBatchResult): Promise<void> {
  let rows = [...pending];
  while (rows.length > 0) {
    const outcome = await ctx.storage.insertStatements(
      ctx.store.id,
      rows.map(({ row }) => row),
    );
    if (!outcome.ok) {
      const { index, statementId } = outcome.conflict;
      result.problems.push(
        problemOf(rows[index]!.item, statementId, 'conflict', `A different statement with id ${statementId} is already in this Store; it was kept and this one was not imported.`),
      );
      rows = rows.filter((_, i) => i !== index);
      continue;
    }
    const inserted = new Set(outcome.inserted);
    result.imported += outcome.inserted.length;
    result.alreadyPresent += outcome.unchanged.length;
    result.voided += rows.filter(({ row }) => row.voidsStatementId !== null && inserted.has(row.statementId)).length;
    const last = rows[rows.length - 1]!.row;
    result.last = { stored: last.stored, statementId: last.statementId };
    if (outcome.inserted.length > 0) ctx.events.announceStatements(ctx.store, rows.map(({ row }) => row), outcome.inserted);
    return;
  }
}

function prepareImported(ctx: StatementImportContext, item: ImportItem): { row: StatementRow } | { problem: ImportProblem } {
  const source = item.statement;
  const givenId = isPlainObject(source) && typeof source.id === 'string' ? source.id : undefined;
  if (!isPlainObject(source)) return { problem: problemOf(item, givenId, 'invalid', 'Not a statement: a JSON object is expected.') };
  // Without its id a statement would get a new one each time: importing again would copy it.
  if (givenId === undefined) return { problem: problemOf(item, undefined, 'invalid', 'The statement has no id (id): a stored statement always has one.') };
  const version = versionOf(source);
  const validation = validateStatements(source, version);
  if (!validation.ok) {
    const { issue } = validation;
    return { problem: problemOf(item, givenId, 'invalid', issue.field ? `${issue.message} (${issue.field})` : issue.message) };
  }
  const statement = validation.statements[0]!;
  const stored = typeof source.stored === 'string' && !Number.isNaN(Date.parse(source.stored)) ? source.stored : ctx.now().toISOString();
  const prepared = prepareStatement(statement, {
    // Kept as the source had them: the source's authority and stored time, not this service's.
    authority: statement.authority ?? ctx.fallbackAuthority,
    stored,
    version,
    newId: () => givenId,
  });
  return { row: statementRowOf(prepared, source, { stored, keyId: ctx.keyId, activityDefinitions: extractActivityDefinitions(prepared) }) };
}

/** The rule set a statement is checked by: the one its `version` names (2.0.x), else 1.0.3. */
function versionOf(statement: Record<string, unknown>): XapiVersion {
  return typeof statement.version === 'string' && statement.version.startsWith('2.') ? '2.0.0' : '1.0.3';
}

function problemOf(item: ImportItem, statementId: string | undefined, kind: ImportProblem['kind'], message: string): ImportProblem {
  return {
    kind,
    ...(item.line !== undefined ? { line: item.line } : {}),
    ...(statementId !== undefined ? { statementId: statementId.slice(0, 100) } : {}),
    message,
  };
}

function isVoiding(statement: Record<string, unknown> | undefined): boolean {
  const verb = statement?.verb;
  return isPlainObject(verb) && verb.id === VOIDED_VERB_ID;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
