import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from '../../src-renderer/routes';

describe('console routes', () => {
  it('reads screens and Store slugs from the hash', () => {
    expect(parseRoute('#/explorer/demo')).toEqual({ screen: 'explorer', store: 'demo' });
    expect(parseRoute('#/keys')).toEqual({ screen: 'keys' });
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

  it('writes hrefs that parse back to the same route', () => {
    for (const route of [
      { screen: 'keys', store: 'a-b' },
      { screen: 'connection' },
      { screen: 'stores' },
      { screen: 'bench', store: 'a-b' },
      { screen: 'bench', store: 'a-b', registration: 'r/1' },
    ] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
  });
});
