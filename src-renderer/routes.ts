/** The console's screens, addressed by the URL hash so that links, reloads and Back work. */
export type Route =
  | { screen: 'stores' }
  | { screen: 'keys'; store?: string }
  | { screen: 'explorer'; store?: string; filters?: ExplorerUrlFilters }
  | { screen: 'bench'; store?: string; registration?: string }
  | { screen: 'forwarding'; store?: string }
  | { screen: 'ingestion' }
  | { screen: 'audit' }
  | { screen: 'connection' };

export type Screen = Route['screen'];

/**
 * The Statement Explorer's filters as its URL holds them, after a `?`:
 * `#/explorer/demo?actor=Ada&verb=completed&status=rejected`. Named as the screen names them
 * (actor, not the API's agent); in this order in every link, so one search has one address.
 */
const EXPLORER_URL_KEYS = ['actor', 'verb', 'activity', 'registration', 'status', 'warned', 'since', 'until'] as const;
export type ExplorerUrlFilters = Partial<Record<(typeof EXPLORER_URL_KEYS)[number], string>>;

function explorerFilters(query: string): ExplorerUrlFilters | undefined {
  const params = new URLSearchParams(query);
  const filters: ExplorerUrlFilters = {};
  for (const key of EXPLORER_URL_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  return Object.keys(filters).length > 0 ? filters : undefined;
}

function explorerQuery(filters: ExplorerUrlFilters | undefined): string {
  const params = new URLSearchParams();
  for (const key of EXPLORER_URL_KEYS) {
    const value = filters?.[key];
    if (value) params.set(key, value);
  }
  const query = params.toString();
  return query ? `?${query}` : '';
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#?\/?/, '').split(/\?(.*)/s);
  const [screen, rawStore, rawRegistration] = path.split('/');
  const store = rawStore ? decodeURIComponent(rawStore) : undefined;
  switch (screen) {
    case 'bench': {
      const registration = store && rawRegistration ? decodeURIComponent(rawRegistration) : undefined;
      return { screen, ...(store ? { store } : {}), ...(registration ? { registration } : {}) };
    }
    case 'explorer': {
      const filters = explorerFilters(query);
      return { screen, ...(store ? { store } : {}), ...(filters ? { filters } : {}) };
    }
    case 'keys':
    case 'forwarding':
      return store ? { screen, store } : { screen };
    case 'ingestion':
    case 'audit':
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
  if (route.screen === 'explorer') {
    return `#/explorer${route.store ? `/${encodeURIComponent(route.store)}` : ''}${explorerQuery(route.filters)}`;
  }
  if (route.screen === 'keys' && route.store) return `#/keys/${encodeURIComponent(route.store)}`;
  if (route.screen === 'forwarding' && route.store) return `#/forwarding/${encodeURIComponent(route.store)}`;
  return `#/${route.screen}`;
}
