/**
 * The OpenAPI description and the server's route table can never drift: every admin route the
 * server registers is described, and every described operation is a route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../http/test-app';

/**
 * Fastify's printed route tree as (METHOD path) pairs: each line is an indented branch
 * ("│   ├── /keys (GET, HEAD, POST)") whose path continues its parent's, four characters a level.
 */
export function routesOf(tree: string): Set<string> {
  const routes = new Set<string>();
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line.trimEnd());
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of match[3]!.split(', ')) routes.add(`${method} ${stack.join('')}`);
  }
  return routes;
}

describe('the admin API description', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.ready();
  });
  afterAll(() => t.close());

  it('describes exactly the admin routes the server registers', async () => {
    const served = [...routesOf(t.app.printRoutes({ commonPrefix: false }))].filter(
      // HEAD is Fastify's automatic twin of GET; the wildcard is the console's not-found answer.
      (route) => route.includes(' /admin/api/') && !route.startsWith('HEAD ') && !route.endsWith('/*'),
    );
    const document = (await t.app.inject({ method: 'GET', url: '/admin/api/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    const missing = served.filter((route) => !described.includes(route)).sort();
    const extra = described.filter((route) => !served.includes(route)).sort();
    expect({ servedButNotDescribed: missing, describedButNotServed: extra }).toEqual({ servedButNotDescribed: [], describedButNotServed: [] });
    expect(served.length).toBeGreaterThan(15);
  });

  it('reads the route tree as Fastify prints it', () => {
    const tree = ['├── /admin (GET, HEAD)', '│   ├── /api/stores (GET, POST)', '│   │   └── /:slug (DELETE)', '│   └── /api/events (GET)', '└── /health (GET)'].join('\n');
    expect([...routesOf(tree)].sort()).toEqual(['DELETE /admin/api/stores/:slug', 'GET /admin', 'GET /admin/api/events', 'GET /admin/api/stores', 'GET /health', 'HEAD /admin', 'POST /admin/api/stores'].sort());
  });
});
