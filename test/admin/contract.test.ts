import { describe, expect, it } from 'vitest';
import { adminOperations, buildAdminRequest, slugSchema } from '../../src-server/admin/contract';

describe('admin operations table', () => {
  it('fills path parameters and sends the rest as a JSON body', () => {
    expect(buildAdminRequest('apiKeys.create', { slug: 'demo', name: 'Storyline' })).toEqual({
      method: 'POST',
      path: '/stores/demo/keys',
      body: { name: 'Storyline' },
    });
  });

  it('sends GET input as a query string and leaves out absent values', () => {
    expect(buildAdminRequest('statements.search', { slug: 'demo', status: 'rejected', agent: undefined, limit: 20 })).toEqual({
      method: 'GET',
      path: '/stores/demo/statements?status=rejected&limit=20',
    });
  });

  it('escapes path parameters', () => {
    expect(buildAdminRequest('apiKeys.revoke', { slug: 'demo', id: 'a/b' }).path).toBe('/stores/demo/keys/a%2Fb');
  });

  it('names only paths below /admin/api', () => {
    for (const operation of Object.values(adminOperations)) expect(operation.path.startsWith('/')).toBe(true);
  });

  it('accepts a plain slug and refuses a reserved one', () => {
    expect(slugSchema.safeParse('course-101').success).toBe(true);
    expect(slugSchema.safeParse('admin').success).toBe(false);
  });
});
