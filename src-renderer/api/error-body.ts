import { AdminError } from './admin-client';

/**
 * Reads the error body of docs/design.md ("Errors") (`{"error": {status, code, message, field?, statementIndex?}}`)
 * from a failed response's text. A body of another shape (a proxy's HTML page, an empty 502)
 * still yields an error that says what happened.
 */
export function parseErrorBody(status: number, text: string): AdminError {
  try {
    const parsed: unknown = JSON.parse(text);
    const error = (parsed as { error?: unknown } | null)?.error;
    if (typeof error === 'object' && error !== null) {
      const e = error as Record<string, unknown>;
      if (typeof e.code === 'string' && typeof e.message === 'string') {
        return new AdminError({
          status: typeof e.status === 'number' ? e.status : status,
          code: e.code,
          message: e.message,
          ...(typeof e.field === 'string' ? { field: e.field } : {}),
          ...(typeof e.statementIndex === 'number' ? { statementIndex: e.statementIndex } : {}),
        });
      }
    }
  } catch {
    // not JSON: fall through
  }
  return new AdminError({ status, code: `http_${status}`, message: `The service answered ${status}${text ? `: ${text.slice(0, 200)}` : ''}` });
}
