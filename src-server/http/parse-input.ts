/** Parses admin API input with its zod schema; a failure names the field at fault. */
import type { z } from 'zod';
import { errors } from './errors';

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query'): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = fieldPath(issue.path);
  const message = field === '' ? issue.message : `${field}: ${issue.message}`;
  throw where === 'body' ? errors.invalidBody(message, field) : errors.invalidParameter(message, field);
}
