/**
 * What the request limits share: a Store's own limits, and the refusals they answer with, each
 * naming the limit, the value received and what to do.
 */
import type { FastifyRequest } from 'fastify';
import type { ServiceLimits, StoreLimits } from '../../limits/service-limits';
import type { StoreRecord } from '../../storage/storage';
import { formatPath, type PathSegment } from '../../xapi/issue';
import { errors, LrsError } from '../errors';
import type { JsonScan } from './limits-json-scan';

/** A Store's overrides; absent on Stores (and data directories) that never set any. */
export function storeLimitsOf(store: StoreRecord | null | undefined): StoreLimits | null {
  return store?.limits ?? null;
}

/** A count as the messages write it: 65,536. */
export const number = (value: number) => value.toLocaleString('en-US');

export function bodyTooLarge(limit: number, received: string): LrsError {
  return errors.bodyTooLarge(`The body is ${received}; this Store accepts at most ${number(limit)} bytes per request.`);
}

export function batchTooLarge(items: number, limit: number): LrsError {
  return new LrsError(
    413,
    'batch_too_large',
    `The batch holds ${number(items)} statements; this Store accepts at most ${number(limit)} per request: send them in smaller batches.`,
  );
}

function truncate(segment: PathSegment): PathSegment {
  return typeof segment === 'string' && segment.length > 200 ? `${segment.slice(0, 200)}…` : segment;
}

export /** The scan's fault as a 400 naming the path; in a statement batch, the statement's index apart. */
function scanFault(scan: Extract<JsonScan, { ok: false }>, limits: ServiceLimits, batch: boolean): LrsError {
  let path = scan.path.map(truncate);
  let statementIndex: number | undefined;
  if (batch && typeof path[0] === 'number') {
    statementIndex = path[0];
    path = path.slice(1);
  }
  const field = formatPath(path);
  const where = field === '' ? (statementIndex === undefined ? 'the body' : `statement ${statementIndex}`) : field;
  if (scan.fault === 'depth') {
    return new LrsError(
      400,
      'json_too_deep',
      `${where} nests objects or arrays more than ${limits.maxJsonDepth} levels deep (counted from the top of the body); this service accepts at most ${limits.maxJsonDepth}.`,
      { field, statementIndex },
    );
  }
  const what = scan.inKey ? `A member name in ${where}` : where;
  return new LrsError(
    400,
    'string_too_long',
    `${what} is a string of ${number(scan.length ?? 0)} characters; this service accepts at most ${number(limits.maxStringLength)}.`,
    { field, statementIndex },
  );
}

/** A statement POST or PUT: its body is a statement or a batch. */
export function isStatementWrite(request: FastifyRequest): boolean {
  return (request.method === 'POST' || request.method === 'PUT') && (request.routeOptions.url ?? '').endsWith('/statements');
}
