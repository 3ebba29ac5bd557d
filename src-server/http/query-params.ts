/**
 * A request's query as single string values, for the xAPI resources whose parameters each occur
 * once. A parameter given twice is a client error naming it; an empty value stays "" (the rules
 * in src-server/xapi say what it should have been).
 */
import type { FastifyRequest } from 'fastify';
import { errors } from './errors';

export function singleQueryParams(request: FastifyRequest): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) throw errors.invalidParameter(`The parameter ${name} is given more than once.`, name);
    params[name] = typeof value === 'string' ? value : undefined;
  }
  return params;
}
