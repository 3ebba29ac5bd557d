/** The admin API's console additions: Store summaries and actions, status, ingestion metrics, OpenAPI. */
import { describe, expect, it } from 'vitest';
import { adminOperations, ingestionReportSchema, serviceStatusSchema, storeSummarySchema } from '../../src-server/admin/contract';
import { CONSOLE_KEY_ID } from '../../src-server/admin/store-actions';
import { statement, useDemoStore } from './test-app';

const ctx = useDemoStore();

async function send(body: unknown) {
  return ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: body as Record<string, unknown> });
}

describe('Store summaries', () => {
  it('lists each Store with its statement and rejection counts and its last activity', async () => {
    await ctx.t.createStore('quiet', 'live');
    expect((await send([statement(), statement()])).statusCode).toBe(200);
    expect((await send({ actor: { mbox: 'ada@example.com' } })).statusCode).toBe(400);
    const { stores } = (await ctx.t.admin({ method: 'GET', url: '/admin/api/stores' })).json();
    const demo = storeSummarySchema.parse(stores.find((s: { slug: string }) => s.slug === 'demo'));
    expect(demo).toMatchObject({ statementCount: 2, rejectedCount: 1, endpoint: 'http://127.0.0.1:8411/demo/xAPI/' });
    expect(Date.now() - Date.parse(demo.lastActivityAt!)).toBeLessThan(60_000);
    expect(stores.find((s: { slug: string }) => s.slug === 'quiet')).toMatchObject({ statementCount: 0, rejectedCount: 0, lastActivityAt: null });
  });
});

describe('emptying a Store', () => {
  it('empties a test Store at once and keeps its keys working', async () => {
    await send(statement());
    await send({ verb: 'nothing' });
    const response = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/empty', payload: {} });
    expect(response.statusCode).toBe(204);
    const explorer = (await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' })).json();
    expect(explorer.records).toEqual([]);
    expect((await send(statement())).statusCode).toBe(200);
  });

  it('refuses to empty a live Store without its slug typed back, naming confirm', async () => {
    await ctx.t.createStore('prod', 'live');
    const prodKey = await ctx.t.createKey('prod');
    await ctx.t.xapi(prodKey, { method: 'POST', url: '/prod/xAPI/statements', payload: statement() });
    for (const payload of [{}, { confirm: 'demo' }]) {
      const refused = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/prod/empty', payload });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'confirmation_required', field: 'confirm' });
    }
    const summary = () => ctx.t.admin({ method: 'GET', url: '/admin/api/stores' }).then((r) => r.json().stores.find((s: { slug: string }) => s.slug === 'prod'));
    expect((await summary()).statementCount).toBe(1);
    const emptied = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/prod/empty', payload: { confirm: 'prod' } });
    expect(emptied.statusCode).toBe(204);
    expect((await summary()).statementCount).toBe(0);
  });

  it('answers 404 for an unknown Store', async () => {
    expect((await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/nope/empty', payload: {} })).statusCode).toBe(404);
  });
});

describe('the test statement', () => {
  it('records "Lore console experienced" the Store\'s test activity through the statement pipeline', async () => {
    const response = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/test-statement', payload: {} });
    expect(response.statusCode).toBe(200);
    const { statementId } = response.json();
    // Readable with an ordinary ctx.key, as content's statements are.
    const read = await ctx.t.xapi(ctx.key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${statementId}` });
    expect(read.statusCode).toBe(200);
    const stored = read.json();
    expect(stored.actor.name).toBe('Lore console');
    expect(stored.verb.id).toBe('http://adlnet.gov/expapi/verbs/experienced');
    expect(stored.object.id).toBe('http://127.0.0.1:8411/demo/xAPI/activities/lore-console-test');
    expect(stored.authority).toMatchObject({ name: 'Lore console', account: { name: CONSOLE_KEY_ID } });
    const explorer = (await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' })).json();
    expect(explorer.records[0]).toMatchObject({ statementId, status: 'accepted', keyId: CONSOLE_KEY_ID });
  });
});

describe('service status', () => {
  it('tells the public URL besides the counts, valid per the contract', async () => {
    const status = serviceStatusSchema.parse((await ctx.t.admin({ method: 'GET', url: '/admin/api/status' })).json());
    expect(status.publicUrl).toBe('http://127.0.0.1:8411');
  });
});

describe('ingestion metrics', () => {
  it('reports accepted against rejected per minute, with totals and top lists, valid per the contract', async () => {
    await send([statement(), statement({ object: { id: 'http://example.com/courses/module-2' } })]);
    await send({ actor: 'nobody' });
    const response = await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion?bucket=minute&store=demo' });
    expect(response.statusCode).toBe(200);
    const report = ingestionReportSchema.parse(response.json());
    expect(report.series).toHaveLength(60);
    // Summed: the minute may have turned between the sends and the report.
    const sum = (field: 'accepted' | 'rejected') => report.series.reduce((n, point) => n + point[field], 0);
    expect([sum('accepted'), sum('rejected')]).toEqual([2, 1]);
    expect(report.totals).toEqual({ accepted: 2, voided: 0, rejected: 1 });
    expect(report.topVerbs).toEqual([{ id: 'http://adlnet.gov/expapi/verbs/completed', count: 2, name: 'completed' }]);
    expect(report.topActivities.map((a) => a.id)).toEqual(['http://example.com/courses/module-1', 'http://example.com/courses/module-2']);
  });

  it('names verbs and activities as the content did: the verb display, the activity definition name', async () => {
    await send(statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/attempted', display: { 'fr-FR': 'a tenté', 'en-GB': 'attempted' } } }));
    await send(
      statement({
        object: { objectType: 'Activity', id: 'http://example.com/courses/safety', definition: { name: { 'en-US': 'Workplace safety', de: 'Arbeitssicherheit' } } },
      }),
    );
    await send(statement({ verb: { id: 'http://example.com/verbs/no-display' }, object: { objectType: 'Activity', id: 'http://example.com/courses/unnamed' } }));
    const report = ingestionReportSchema.parse((await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion?bucket=minute&store=demo' })).json());
    const named = (rows: Array<{ id: string; name: string | null }>) => Object.fromEntries(rows.map((row) => [row.id, row.name]));
    expect(named(report.topVerbs)).toMatchObject({
      'http://adlnet.gov/expapi/verbs/attempted': 'attempted',
      'http://adlnet.gov/expapi/verbs/completed': 'completed',
      'http://example.com/verbs/no-display': null,
    });
    expect(named(report.topActivities)).toMatchObject({ 'http://example.com/courses/safety': 'Workplace safety', 'http://example.com/courses/unnamed': null });
  });

  it('defaults to the last 24 hours by hour and the last 30 days by day, over every Store', async () => {
    await send(statement());
    await ctx.t.createStore('other');
    const otherKey = await ctx.t.createKey('other');
    await ctx.t.xapi(otherKey, { method: 'POST', url: '/other/xAPI/statements', payload: statement() });
    const hours = ingestionReportSchema.parse((await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion' })).json());
    expect(hours.bucket).toBe('hour');
    expect(hours.series).toHaveLength(24);
    expect(Date.parse(hours.until) - Date.parse(hours.since)).toBe(24 * 3_600_000);
    expect(hours.totals.accepted).toBe(2);
    const days = ingestionReportSchema.parse((await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion?bucket=day' })).json());
    expect(days.series).toHaveLength(30);
    expect(days.since.endsWith('T00:00:00.000Z')).toBe(true);
  });

  it('counts a voiding statement as voided', async () => {
    const [id] = (await send(statement())).json();
    await send(statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id } }));
    const report = (await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion?store=demo' })).json();
    expect(report.totals).toEqual({ accepted: 2, voided: 1, rejected: 0 });
  });

  it('honours since and until', async () => {
    await send(statement());
    const response = await ctx.t.admin({
      method: 'GET',
      url: '/admin/api/metrics/ingestion?bucket=hour&since=2020-01-01T00:00:00Z&until=2020-01-02T00:00:00Z',
    });
    const report = response.json();
    expect(report.since).toBe('2020-01-01T00:00:00.000Z');
    expect(report.until).toBe('2020-01-02T00:00:00.000Z');
    expect(report.totals.accepted).toBe(0);
  });

  it.each([
    ['bucket=week', 'bucket'],
    ['since=yesterday', 'since'],
    ['since=2024-01-02T00:00:00Z&until=2024-01-01T00:00:00Z', 'since'],
    ['bucket=minute&since=2020-01-01T00:00:00Z&until=2024-01-01T00:00:00Z', 'since'],
    ['unknown=1', ''],
  ])('refuses %s with 400 naming %j', async (query, field) => {
    const response = await ctx.t.admin({ method: 'GET', url: `/admin/api/metrics/ingestion?${query}` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe(field);
  });

  it('answers 404 for an unknown Store', async () => {
    expect((await ctx.t.admin({ method: 'GET', url: '/admin/api/metrics/ingestion?store=nope' })).statusCode).toBe(404);
  });
});

describe('the OpenAPI description', () => {
  it('is served without credentials and describes every admin operation with its schemas', async () => {
    const response = await ctx.t.app.inject({ method: 'GET', url: '/admin/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    // The document is plain JSON; its shape is what the assertions below check.
    type Media = { schema: Record<string, unknown> & { properties: Record<string, unknown> } };
    type Json = { content: { 'application/json': Media } & Record<string, Media> };
    type Described = { parameters: unknown[]; responses: { default: Json } & Record<string, Json>; requestBody: Json };
    const operations = new Map<string, { method: string; path: string; op: Described }>();
    for (const [path, methods] of Object.entries<Record<string, Described & { operationId: string }>>(document.paths)) {
      for (const [method, op] of Object.entries(methods)) operations.set(op.operationId, { method, path, op });
    }
    for (const [name, operation] of Object.entries(adminOperations)) {
      const described = operations.get(name);
      expect(described, name).toBeDefined();
      expect(described!.method).toBe(operation.method.toLowerCase());
      expect(described!.path).toBe(`/admin/api${operation.path.replace(/:(\w+)/g, '{$1}')}`);
      for (const param of operation.path.matchAll(/:(\w+)/g)) {
        expect(described!.op.parameters, name).toContainEqual(expect.objectContaining({ name: param[1], in: 'path', required: true }));
      }
      const success = Object.entries(described!.op.responses).find(([status]) => status.startsWith('2'));
      expect(success, name).toBeDefined();
      if (success![0] !== '204') expect(success![1].content['application/json'].schema, name).toHaveProperty('type');
      expect(described!.op.responses.default.content['application/json'].schema.properties).toHaveProperty('error');
    }
    expect(operations.get('stores.create')!.op.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['slug', 'name'],
      properties: { slug: { type: 'string' }, environment: { enum: ['test', 'live'] } },
    });
    expect(operations.get('statements.search')!.op.parameters).toContainEqual(expect.objectContaining({ name: 'cursor', in: 'query', required: false }));
    expect(operations.get('stores.create')!.op.responses).toHaveProperty('201');
    expect(operations.get('stores.delete')!.op.responses).toHaveProperty('204');
    expect(operations.get('events.stream')!.op.responses['200']!.content).toHaveProperty('text/event-stream');
    expect(operations.get('backups.download')!.op.responses['200']!.content).toHaveProperty('application/vnd.sqlite3');
    // The description itself is read without a token; every other operation needs it.
    expect(operations.get('openapi.get')!.op).toHaveProperty('security', []);
    expect(operations.get('refusals.service')!.op).toHaveProperty('security', [{ adminToken: [] }]);
  });
});
