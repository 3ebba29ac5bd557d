import { describe, expect, it } from 'vitest';
import { AdminError } from '../../src-renderer/api/admin-client';
import { parseErrorBody } from '../../src-renderer/api/error-body';

describe('parseErrorBody', () => {
  it('reads status, code, message, field and statement index of the error body', () => {
    const error = parseErrorBody(400, JSON.stringify({ error: { status: 400, code: 'invalid_body', message: 'a slug uses only lowercase letters', field: 'slug' } }));
    expect(error).toBeInstanceOf(AdminError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_body', message: 'a slug uses only lowercase letters', field: 'slug' });
  });

  it('says what happened when the body is not the service’s', () => {
    expect(parseErrorBody(502, '<html>Bad gateway</html>')).toMatchObject({ status: 502, code: 'http_502', message: 'The service answered 502: <html>Bad gateway</html>' });
    expect(parseErrorBody(500, '')).toMatchObject({ message: 'The service answered 500' });
  });
});
