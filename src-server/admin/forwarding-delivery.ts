/**
 * One batch sent to a forwarder's destination, and what its answer means (docs/forwarding.md):
 * - webhook: POST `{"statements":[…]}` as JSON, signed with `Lore-Signature: t=<unix s>,v1=<hex
 *   HMAC-SHA256 of "<t>.<body>">` under the forwarder's secret;
 * - xapi: POST the statements as a JSON array to `<url>/statements`, Basic auth, the version
 *   header 2.0.0 when a statement of the batch is a 2.0 statement, else 1.0.3.
 * The statements are sent as stored (the text GET answers), so their ids let a receiver drop copies.
 */
import { createHmac } from 'node:crypto';
import type { ForwardableStatement, ForwarderFilter, ForwarderRecord } from '../storage/forwarders';

/** Delivered: acknowledged. Retry: may go through later. Refused: the destination will never take it as it is. */
export type DeliveryOutcome = { kind: 'delivered' } | { kind: 'retry' | 'refused'; status: number | null; message: string };

/**
 * Answers that no retry changes: the batch itself is refused (bad request, an id already there with
 * other content, too large, unprocessable). Credentials (401, 403), a wrong address (404) and the
 * receiver's troubles (408, 429, 5xx) are retried: an admin or time can fix them.
 */
const REFUSED = new Set([400, 409, 413, 422]);

const SIGNATURE_HEADER = 'Lore-Signature';

/** The Lore-Signature header's value for `body` sent at `unixSeconds`. */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** Whether the forwarder sends this statement (every member of the filter given must match). */
export function passesFilter(filter: ForwarderFilter | null, statement: ForwardableStatement): boolean {
  if (!filter) return true;
  if (filter.status !== undefined && (filter.status === 'voided') !== statement.voided) return false;
  if (filter.verb === undefined && filter.activity === undefined) return true;
  const parsed = JSON.parse(statement.statementJson) as { verb?: { id?: unknown }; object?: { id?: unknown; objectType?: unknown } };
  if (filter.verb !== undefined && parsed.verb?.id !== filter.verb) return false;
  if (filter.activity !== undefined) {
    const object = parsed.object;
    const isActivity = object !== undefined && (object.objectType === undefined || object.objectType === 'Activity');
    if (!isActivity || object.id !== filter.activity) return false;
  }
  return true;
}

/** The body of a batch: the stored texts joined, never parsed and written again. */
export function batchBody(forwarder: Pick<ForwarderRecord, 'kind'>, statements: readonly ForwardableStatement[]): string {
  const list = `[${statements.map((statement) => statement.statementJson).join(',')}]`;
  return forwarder.kind === 'webhook' ? `{"statements":${list}}` : list;
}

function xapiVersion(statements: readonly ForwardableStatement[]): string {
  return statements.some((statement) => /"version"\s*:\s*"2\./.test(statement.statementJson)) ? '2.0.0' : '1.0.3';
}

function statementsUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/statements`;
}

export async function sendBatch(
  forwarder: ForwarderRecord,
  statements: readonly ForwardableStatement[],
  options: { signal: AbortSignal; timeoutMs: number; now?: () => number },
): Promise<DeliveryOutcome> {
  const body = batchBody(forwarder, statements);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Lore-LRS forwarding' };
  let url = forwarder.url;
  if (forwarder.kind === 'webhook') {
    headers[SIGNATURE_HEADER.toLowerCase()] = webhookSignature(forwarder.secret, Math.floor((options.now?.() ?? Date.now()) / 1000), body);
  } else {
    url = statementsUrl(forwarder.url);
    headers['x-experience-api-version'] = xapiVersion(statements);
    headers['authorization'] = `Basic ${Buffer.from(`${forwarder.username ?? ''}:${forwarder.secret}`).toString('base64')}`;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const message = (err as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (err as Error).message);
    return { kind: 'retry', status: null, message: `could not reach ${new URL(url).host}: ${message}` };
  }
  // What the destination says, briefly: an error message, never more than a line of it.
  const text = await response.text().catch(() => '');
  if (response.status >= 200 && response.status < 300) return { kind: 'delivered' };
  const said = text.replace(/\s+/g, ' ').trim().slice(0, 300);
  const message = `${response.status} ${response.statusText}${said ? `: ${said}` : ''}`;
  return { kind: REFUSED.has(response.status) ? 'refused' : 'retry', status: response.status, message };
}
