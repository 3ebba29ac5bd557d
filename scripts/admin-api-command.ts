/**
 * What the command-line tools that talk to a running service share: its admin token from
 * LRS_ADMIN_TOKEN, its URL (--url, LRS_URL, or the default), and a request to its admin API whose
 * failure (unreachable, refused) comes back as one line to print.
 */
import { ADMIN_API_PREFIX } from '../src-server/admin/openapi';

/** LRS_ADMIN_TOKEN, or null after saying what is missing. */
export function adminTokenOr(usage: string, what: string): string | null {
  const token = process.env.LRS_ADMIN_TOKEN;
  if (token) return token;
  console.error(`LRS_ADMIN_TOKEN is not set: ${what} needs the service's admin token.\n${usage}`);
  return null;
}

export function serviceBase(url: unknown): string {
  return (typeof url === 'string' ? url : (process.env.LRS_URL ?? 'http://127.0.0.1:8411')).replace(/\/+$/, '');
}

/** The answer with a body, or the line saying why there is none (`what`: "the backup", "the export"). */
export async function adminRequest(base: string, path: string, init: RequestInit & { token: string }, what: string): Promise<{ ok: true; response: Response } | { ok: false; message: string }> {
  const { token, ...rest } = init;
  let response: Response;
  try {
    response = await fetch(`${base}${ADMIN_API_PREFIX}${path}`, { ...rest, headers: { authorization: `Bearer ${token}` } });
  } catch (err) {
    return { ok: false, message: `cannot reach ${base}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}` };
  }
  if (response.ok && response.body) return { ok: true, response };
  const text = await response.text();
  let message = text;
  try {
    const { error } = JSON.parse(text) as { error: { message: string; field?: string } };
    message = error.field && !error.message.includes(error.field) ? `${error.message} (${error.field})` : error.message;
  } catch {
    // Not the service's error body: shown as it came.
  }
  return { ok: false, message: `the service refused ${what} (${response.status}): ${message}` };
}
