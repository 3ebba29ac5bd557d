/**
 * Data out and back in: a Store's NDJSON export (GET …/export) uploaded as an import into a new
 * Store gives the same statements, as GET /statements returns them (ids, stored times, voided
 * ones voided, the same order).
 */
import { describe, expect, it } from 'vitest';
import { statement, useDemoStore } from './test-app';

const ctx = useDemoStore();

async function allStatements(slug: string, key: Parameters<typeof ctx.t.xapi>[0]): Promise<unknown[]> {
  const found: unknown[] = [];
  let url: string | null = `/${slug}/xAPI/statements?limit=7`;
  while (url) {
    const response = await ctx.t.xapi(key, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json() as { statements: unknown[]; more: string };
    found.push(...page.statements);
    url = page.more ? new URL(page.more, 'http://x').pathname.replace(/^\/xapi/i, `/${slug}/xAPI`) + new URL(page.more, 'http://x').search : null;
  }
  return found;
}

describe('an NDJSON export imported into a new Store', () => {
  it('gives the same statements, voided ones voided, in the same order', async () => {
    const sent = Array.from({ length: 20 }, (_, i) => statement({ object: { objectType: 'Activity', id: `http://example.com/round-trip/${i}` } }));
    const posted = await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: sent });
    expect(posted.statusCode, posted.body).toBe(200);
    const [voidedId] = posted.json() as string[];
    const voiding = statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: voidedId } });
    expect((await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: voiding })).statusCode).toBe(200);

    const exported = await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/demo/export?format=ndjson' });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.body.trim().split('\n')).toHaveLength(21);

    await ctx.t.createStore('copy');
    const copyKey = await ctx.t.createKey('copy');
    const imported = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/copy/imports', headers: { 'content-type': 'application/x-ndjson' }, payload: exported.body });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json()).toMatchObject({ state: 'finished', counts: { imported: 21, invalid: 0, conflicts: 0 } });

    const strip = (statements: unknown[]) => statements.map((s) => ({ ...(s as Record<string, unknown>), authority: undefined }));
    const original = await allStatements('demo', ctx.key);
    const copy = await allStatements('copy', copyKey);
    expect(copy).toHaveLength(20);
    expect(strip(copy)).toEqual(strip(original));
    const voided = await ctx.t.xapi(copyKey, { method: 'GET', url: `/copy/xAPI/statements?voidedStatementId=${voidedId}` });
    expect(voided.statusCode, voided.body).toBe(200);
    expect((voided.json() as { id: string }).id).toBe(voidedId);
  });
});
