import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from '../../src-renderer/routes';

describe('console routes', () => {
  it('reads screens and Store slugs from the hash', () => {
    expect(parseRoute('#/explorer/demo')).toEqual({ screen: 'explorer', store: 'demo' });
    expect(parseRoute('#/keys')).toEqual({ screen: 'keys' });
    expect(parseRoute('#/forwarding/demo')).toEqual({ screen: 'forwarding', store: 'demo' });
    expect(parseRoute('#/forwarding')).toEqual({ screen: 'forwarding' });
    expect(parseRoute('#/ingestion')).toEqual({ screen: 'ingestion' });
    expect(parseRoute('#/bench/demo/6f1c2a4e-0000-4000-8000-000000000001')).toEqual({
      screen: 'bench',
      store: 'demo',
      registration: '6f1c2a4e-0000-4000-8000-000000000001',
    });
    expect(parseRoute('#/bench')).toEqual({ screen: 'bench' });
  });

  it('opens the Stores screen for an empty or unknown hash', () => {
    expect(parseRoute('')).toEqual({ screen: 'stores' });
    expect(parseRoute('#/nowhere')).toEqual({ screen: 'stores' });
  });

  it("reads the Explorer's filters after a ?, keeping only those it knows", () => {
    expect(parseRoute('#/explorer/demo?verb=completed&actor=Ada%20Lovelace&status=rejected&page=3')).toEqual({
      screen: 'explorer',
      store: 'demo',
      filters: { verb: 'completed', actor: 'Ada Lovelace', status: 'rejected' },
    });
    expect(parseRoute('#/explorer?activity=http%3A%2F%2Fexample.com%2Fa%3Fb%3D1')).toEqual({
      screen: 'explorer',
      filters: { activity: 'http://example.com/a?b=1' },
    });
    expect(parseRoute('#/explorer/demo?')).toEqual({ screen: 'explorer', store: 'demo' });
  });

  it('writes the Explorer filters in one order, so one search has one address', () => {
    expect(routeHref({ screen: 'explorer', store: 'demo', filters: { status: 'rejected', actor: 'mailto:ada@example.com', verb: 'completed' } })).toBe(
      '#/explorer/demo?actor=mailto%3Aada%40example.com&verb=completed&status=rejected',
    );
    expect(routeHref({ screen: 'explorer', filters: {} })).toBe('#/explorer');
  });

  it('writes hrefs that parse back to the same route', () => {
    for (const route of [
      { screen: 'explorer', store: 'a-b', filters: { actor: '{"mbox":"mailto:a@b.c"}', activity: 'Module 4', since: '2026-01-01T00:00:00.000Z' } },
      { screen: 'explorer', store: 'a b' },
      { screen: 'keys', store: 'a-b' },
      { screen: 'forwarding', store: 'a-b' },
      { screen: 'forwarding' },
      { screen: 'connection' },
      { screen: 'stores' },
      { screen: 'bench', store: 'a-b' },
      { screen: 'bench', store: 'a-b', registration: 'r/1' },
    ] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
  });
});
