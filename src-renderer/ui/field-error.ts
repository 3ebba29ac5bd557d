import type { AdminError } from '../api/admin-client';

/** The error message to show under a form input when the service named that input as the field at fault. */
export function fieldError(error: AdminError | undefined, field: string): string | undefined {
  return error?.field === field ? error.message : undefined;
}

/** The error to show above a form: one no input shows. */
export function formError(error: AdminError | undefined, fields: string[]): string | undefined {
  if (!error) return undefined;
  return error.field !== undefined && fields.includes(error.field) ? undefined : error.message;
}
