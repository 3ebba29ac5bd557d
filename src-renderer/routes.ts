/** The console's screens, addressed by the URL hash so that links, reloads and Back work. */
export type Route =
  | { screen: 'stores' }
  | { screen: 'keys'; store?: string }
  | { screen: 'explorer'; store?: string }
  | { screen: 'bench'; store?: string; registration?: string }
  | { screen: 'ingestion' }
  | { screen: 'connection' };

export type Screen = Route['screen'];

export function parseRoute(hash: string): Route {
  const [screen, rawStore, rawRegistration] = hash.replace(/^#?\/?/, '').split('/');
  const store = rawStore ? decodeURIComponent(rawStore) : undefined;
  switch (screen) {
    case 'bench': {
      const registration = store && rawRegistration ? decodeURIComponent(rawRegistration) : undefined;
      return { screen, ...(store ? { store } : {}), ...(registration ? { registration } : {}) };
    }
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
  if (route.screen === 'bench' && route.store) {
    const registration = route.registration ? `/${encodeURIComponent(route.registration)}` : '';
    return `#/bench/${encodeURIComponent(route.store)}${registration}`;
  }
  if ((route.screen === 'keys' || route.screen === 'explorer') && route.store) {
    return `#/${route.screen}/${encodeURIComponent(route.store)}`;
  }
  return `#/${route.screen}`;
}
