/** The console's screens, addressed by the URL hash so that links, reloads and Back work. */
export type Route =
  | { screen: 'stores' }
  | { screen: 'keys'; store?: string }
  | { screen: 'explorer'; store?: string }
  | { screen: 'ingestion' }
  | { screen: 'connection' };

export type Screen = Route['screen'];

export function parseRoute(hash: string): Route {
  const [screen, rawStore] = hash.replace(/^#?\/?/, '').split('/');
  const store = rawStore ? decodeURIComponent(rawStore) : undefined;
  switch (screen) {
    case 'keys':
    case 'explorer':
      return store ? { screen, store } : { screen };
    case 'ingestion':
    case 'connection':
      return { screen };
    default:
      return { screen: 'stores' };
  }
}

export function routeHref(route: Route): string {
  if ((route.screen === 'keys' || route.screen === 'explorer') && route.store) {
    return `#/${route.screen}/${encodeURIComponent(route.store)}`;
  }
  return `#/${route.screen}`;
}
