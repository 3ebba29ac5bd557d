import { useCallback, useEffect, useState } from 'react';
import { parseRoute, routeHref, type Route } from '../routes';

/** The current screen from the URL hash, and a way to go elsewhere (pushes a history entry). */
export function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHashChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, []);
  const navigate = useCallback((next: Route) => {
    window.location.hash = routeHref(next);
  }, []);
  return [route, navigate];
}
