/**
 * The OpenAPI description, the contract and the server's route table can never drift: every admin
 * route the server registers is an operation of the contract and is described, and every
 * described operation is a route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HTTPMethods } from 'fastify';
import { adminOperations, adminRawOperations } from '../../src-server/admin/contract';
import { buildTestApp, type TestApp } from '../http/test-app';

const ADMIN_API = '/admin/api';

interface Route {
  method: string;
  path: string;
}

const label = (route: Route): string => `${route.method} ${route.path}`;

/**
 * Fastify's printed route tree (`printRoutes()` in its default layout, where every line's key
 * continues its parent's path exactly) as routes. A line this cannot read throws: a changed print
 * format must fail the test, never shrink the route table it compares.
 */
export function routesOf(tree: string): Route[] {
  const routes: Route[] = [];
  const keys: string[] = [];
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z]+(?:, [A-Z]+)*)\))?$/.exec(line);
    if (!match) throw new Error(`a route tree line that cannot be read: "${line}"`);
    keys.length = match[1]!.length / 4;
    keys.push(match[2]!);
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path: keys.join('') });
  }
  return routes;
}

/** The admin API's routes; HEAD only where it is not Fastify's automatic twin of a GET. */
function adminRoutes(routes: Route[]): Route[] {
  const admin = routes.filter((route) => route.path.startsWith(`${ADMIN_API}/`));
  const gets = new Set(admin.filter((route) => route.method === 'GET').map((route) => route.path));
  return admin.filter((route) => !(route.method === 'HEAD' && gets.has(route.path)));
}

/** The operations of an OpenAPI document, `{param}` paths in Fastify's `:param` form. */
function describedRoutes(document: { paths: Record<string, Record<string, { operationId: string }>> }): Array<Route & { operationId: string }> {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{(\w+)\}/g, ':$1'),
      operationId: operation.operationId,
    })),
  );
}

/** What each of two named lists holds that the other does not, for a failure that names every entry. */
function difference(first: [name: string, entries: string[]], second: [name: string, entries: string[]]): Record<string, string[]> {
  const [firstName, firstEntries] = first;
  const [secondName, secondEntries] = second;
  return {
    [`${firstName} only`]: firstEntries.filter((entry) => !secondEntries.includes(entry)).sort(),
    [`${secondName} only`]: secondEntries.filter((entry) => !firstEntries.includes(entry)).sort(),
  };
}

describe('the admin API description', () => {
  let t: TestApp;
  let served: Route[];
  let described: Array<Route & { operationId: string }>;
  beforeAll(async () => {
    t = await buildTestApp();
    const routes = routesOf(t.app.printRoutes());
    // Each route read from the tree is one the router really has: a misread path cannot pass as a route.
    for (const route of routes) expect(t.app.hasRoute({ method: route.method as HTTPMethods, url: route.path }), label(route)).toBe(true);
    served = adminRoutes(routes);
    const response = await t.app.inject({ method: 'GET', url: `${ADMIN_API}/openapi.json` });
    expect(response.statusCode).toBe(200);
    described = describedRoutes(response.json());
  });
  afterAll(() => t.close());

  it('describes exactly the admin routes the server registers', () => {
    const drift = difference(['server', served.map(label)], ['OpenAPI document', described.map(label)]);
    expect(drift, `the server's admin routes and the OpenAPI document differ: ${JSON.stringify(drift)}`).toEqual({
      'server only': [],
      'OpenAPI document only': [],
    });
    expect(served.length).toBeGreaterThanOrEqual(Object.keys(adminOperations).length);
  });

  it('describes exactly the operations of the contract, each at its method and path', () => {
    const contract = [...Object.entries(adminOperations), ...Object.entries(adminRawOperations)].map(
      ([name, operation]) => `${name}: ${operation.method} ${ADMIN_API}${operation.path}`,
    );
    const drift = difference(['OpenAPI document', described.map((route) => `${route.operationId}: ${label(route)}`)], ['contract', contract]);
    expect(drift, `the OpenAPI document and the contract differ: ${JSON.stringify(drift)}`).toEqual({
      'OpenAPI document only': [],
      'contract only': [],
    });
  });

  it('reads the route tree as Fastify prints it', () => {
    const tree = [
      '└── /',
      '    ├── health (GET, HEAD)',
      '    ├── admin (GET, HEAD)',
      '    │   └── /',
      '    │       ├── api/',
      '    │       │   ├── st',
      '    │       │   │   ├── atus (GET, HEAD)',
      '    │       │   │   └── ores (GET, HEAD, POST)',
      '    │       │   │       └── /',
      '    │       │   │           └── :slug (DELETE)',
      '    │       │   └── backups (POST)',
      '    │       └── * (GET, HEAD)',
      '    └── :slug',
      '        └── /xapi/statements (PUT)',
    ].join('\n');
    expect(routesOf(tree).map(label)).toEqual([
      'GET /health',
      'HEAD /health',
      'GET /admin',
      'HEAD /admin',
      'GET /admin/api/status',
      'HEAD /admin/api/status',
      'GET /admin/api/stores',
      'HEAD /admin/api/stores',
      'POST /admin/api/stores',
      'DELETE /admin/api/stores/:slug',
      'POST /admin/api/backups',
      'GET /admin/*',
      'HEAD /admin/*',
      'PUT /:slug/xapi/statements',
    ]);
    expect(adminRoutes(routesOf(tree)).map(label)).toEqual([
      'GET /admin/api/status',
      'GET /admin/api/stores',
      'POST /admin/api/stores',
      'DELETE /admin/api/stores/:slug',
      'POST /admin/api/backups',
    ]);
  });

  it('refuses a route tree line it cannot read', () => {
    expect(() => routesOf('└── /\n    └── stores (GET) {"version":"1.0.0"}')).toThrow(/cannot be read/);
  });
});
