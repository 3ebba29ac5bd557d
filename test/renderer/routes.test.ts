import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from '../../src-renderer/routes';

describe('console routes', () => {
  it('reads screens and Store slugs from the hash', () => {
    expect(parseRoute('#/explorer/demo')).toEqual({ screen: 'explorer', store: 'demo' });
    expect(parseRoute('#/keys')).toEqual({ screen: 'keys' });
    expect(parseRoute('#/ingestion')).toEqual({ screen: 'ingestion' });
  });

  it('opens the Stores screen for an empty or unknown hash', () => {
    expect(parseRoute('')).toEqual({ screen: 'stores' });
    expect(parseRoute('#/nowhere')).toEqual({ screen: 'stores' });
  });

  it('writes hrefs that parse back to the same route', () => {
    for (const route of [{ screen: 'keys', store: 'a-b' }, { screen: 'connection' }, { screen: 'stores' }] as const) {
      expect(parseRoute(routeHref(route))).toEqual(route);
    }
  });
});
