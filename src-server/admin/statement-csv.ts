/**
 * One Explorer record as a CSV row a person reads in a spreadsheet (RFC 4180: comma-separated,
 * CRLF line ends, a field with a comma, quote or line break quoted with its quotes doubled).
 * A cell starting with = + - @ (or a tab or carriage return) is what a spreadsheet runs as a
 * formula: it gets a leading ' so a statement cannot smuggle one into the admin's sheet.
 * Rejected records show what was sent (best effort) and why it was refused.
 */
import type { ExplorerRecord } from '../storage/storage';
import { preferredText } from '../xapi/language-map';

const COLUMNS = [
  'status',
  'stored',
  'timestamp',
  'actor_name',
  'actor_ifi',
  'verb_id',
  'verb_display',
  'object_id',
  'object_name',
  'result_success',
  'result_completion',
  'result_score_scaled',
  'result_score_raw',
  'result_duration',
  'registration',
  'statement_id',
  'error',
] as const;

export const CSV_HEADER = `${COLUMNS.join(',')}\r\n`;

type Json = Record<string, unknown>;

function objectOf(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A language map's text, picked as the console picks it (xapi/language-map.ts). */
function display(map: unknown): string {
  return preferredText(map) ?? '';
}

/** How an agent is identified, in one cell: its mbox, sha1, OpenID, or `name@homePage` of its account. */
function ifi(agent: Json): string {
  for (const key of ['mbox', 'mbox_sha1sum', 'openid'] as const) if (typeof agent[key] === 'string') return agent[key];
  const account = objectOf(agent.account);
  if (account.name !== undefined || account.homePage !== undefined) return `${text(account.name)}@${text(account.homePage)}`;
  return '';
}

function escapeCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The row of one record, CRLF-terminated. */
export function csvRow(record: ExplorerRecord): string {
  const statement = objectOf(record.stored ?? record.payload);
  const actor = objectOf(statement.actor);
  const verb = objectOf(statement.verb);
  const object = objectOf(statement.object);
  const result = objectOf(statement.result);
  const score = objectOf(result.score);
  const definition = objectOf(object.definition);
  const cells = [
    record.status,
    record.receivedAt,
    text(statement.timestamp),
    text(actor.name),
    ifi(actor),
    text(verb.id),
    display(verb.display),
    text(object.id ?? (object.objectType === 'Agent' || object.objectType === 'Group' ? ifi(object) : undefined)),
    display(definition.name) || text(object.name),
    text(result.success),
    text(result.completion),
    text(score.scaled),
    text(score.raw),
    text(result.duration),
    text(objectOf(statement.context).registration),
    text(record.statementId),
    record.error === null ? '' : `${record.error.code}: ${record.error.message}`,
  ];
  return `${cells.map(escapeCell).join(',')}\r\n`;
}
