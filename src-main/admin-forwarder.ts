/**
 * Forwards one admin API operation from the console to a Lore service over HTTP: the desktop
 * app's half of the `lore:admin` channel. Pure apart from the injected `fetch`, so every refusal
 * and every mapping of an HTTP failure is tested without Electron or a network.
 *
 * The renderer is untrusted input: the operation name must be a key of `adminOperations` and the
 * input must pass that operation's schema before anything is sent. Answers are validated against
 * the operation's output schema. Failures come back as plain `{status, code, message, field}`
 * data, never as Error objects: those lose their fields (and carry stacks) across IPC.
 */
import { userInfo } from 'node:os';
import { ADMIN_CLIENT_HEADER, adminOperations, buildAdminRequest, errorBodySchema } from '../src-server/admin/contract';
import type { AdminOperationName } from '../src-server/admin/contract';
import type { AdminBridgeError, AdminBridgeResult } from './bridge-types';
import type { z } from 'zod';

/** Where an admin call goes: the service's base URL and its admin token. */
export interface AdminTarget {
  url: string;
  token: string;
}

/** The active connection, or why there is none to call right now. */
export type TargetResolution = { ok: true; target: AdminTarget } | { ok: false; error: AdminBridgeError };

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const ADMIN_CALL_TIMEOUT_MS = 30_000;

function isAdminOperationName(name: unknown): name is AdminOperationName {
  return typeof name === 'string' && Object.hasOwn(adminOperations, name);
}

/** The first issue of a zod error as the console shows it: a sentence and the dotted field. */
export function zodIssueToError(error: z.ZodError, status: number, code: string, prefix = ''): AdminBridgeError {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  return {
    status,
    code,
    message: `${prefix}${issue?.message ?? 'invalid value'}${field ? ` (${field})` : ''}`,
    ...(field !== undefined && { field }),
  };
}

/**
 * The header that marks a request as the desktop app's (ADMIN_CLIENT_HEADER), with the OS user's
 * name when the system tells it: the audit log then says who acted, not only "admin token".
 */
export function desktopClientHeaders(): Record<string, string> {
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    // no user name on this system: the mark alone
  }
  return { [ADMIN_CLIENT_HEADER]: user ? `desktop; user=${encodeURIComponent(user)}` : 'desktop' };
}

/** Joins a base URL (maybe with a path prefix, e.g. behind a proxy) and an admin API path. */
export function adminApiUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/admin/api${path}`;
}

function describeFetchFailure(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'no answer in time';
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return cause.message;
    return error.message;
  }
  return String(error);
}

/** Reads an error response into the bridge's error shape; any body at all is tolerated. */
async function errorFromResponse(response: Response): Promise<AdminBridgeError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const { status, code, message, field, statementIndex } = parsed.data.error;
      return {
        status,
        code,
        message,
        ...(field !== undefined && { field }),
        ...(statementIndex !== undefined && { statementIndex }),
      };
    }
  } catch {
    // Not JSON: a proxy's HTML page, or something that is not a Lore service.
  }
  const codes: Record<number, string> = { 401: 'unauthenticated', 403: 'forbidden', 404: 'not_found' };
  return {
    status: response.status,
    code: codes[response.status] ?? 'http_error',
    message:
      response.status === 404
        ? 'The service answered 404: this address does not serve the Lore admin API (is it a Lore service?).'
        : `The service answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`,
  };
}

/**
 * Performs `name` with `input` on `target`. `name` and `input` are whatever the renderer sent.
 */
export async function forwardAdminCall(
  name: unknown,
  input: unknown,
  resolveTarget: () => TargetResolution | Promise<TargetResolution>,
  fetchImpl: FetchLike = fetch,
  timeoutMs = ADMIN_CALL_TIMEOUT_MS,
): Promise<AdminBridgeResult<unknown>> {
  if (!isAdminOperationName(name)) {
    return {
      ok: false,
      error: { status: 400, code: 'unknown_operation', message: `There is no admin operation named ${JSON.stringify(name)}.` },
    };
  }
  const operation = adminOperations[name];
  const parsed = operation.input.safeParse(input ?? {});
  if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };

  const resolution = await resolveTarget();
  if (!resolution.ok) return resolution;
  const { url, token } = resolution.target;

  const request = buildAdminRequest(name, parsed.data as never);
  let response: Response;
  try {
    response = await fetchImpl(adminApiUrl(url, request.path), {
      method: request.method,
      headers: {
        authorization: `Bearer ${token}`,
        ...desktopClientHeaders(),
        accept: 'application/json',
        ...(request.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
  } catch (error) {
    return {
      ok: false,
      error: { status: 0, code: 'unreachable', message: `Could not reach the Lore service at ${url}: ${describeFetchFailure(error)}.` },
    };
  }
  if (!response.ok) return { ok: false, error: await errorFromResponse(response) };

  let body: unknown;
  try {
    const text = await response.text();
    body = text === '' ? undefined : JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: { status: 502, code: 'invalid_response', message: `The service's answer could not be read: ${describeFetchFailure(error)}.` },
    };
  }
  const output = operation.output.safeParse(body);
  if (!output.success) {
    return {
      ok: false,
      error: zodIssueToError(output.error, 502, 'invalid_response', 'The service answered with data this console does not understand: '),
    };
  }
  return { ok: true, value: output.data };
}
