/** A client-caused failure of an xAPI operation; the HTTP layer turns it into an error response. */
export interface OperationFailure {
  status: 400 | 403 | 404 | 409;
  code: string;
  message: string;
  field?: string;
  statementIndex?: number;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; failure: OperationFailure };
