import { Suspense, useCallback, useMemo, useState } from 'react';
import { clearAdminToken, readAdminToken, saveAdminToken } from '../api/admin-token-store';
import { AdminClientProvider } from '../api/client-context';
import { withBrowserWideLiveEvents } from '../api/browser-live-events';
import { createHttpAdminClient } from '../api/http-transport';
import { saveBlobAsDownload } from '../api/save-download';
import { LoadingState } from '../ui/StateViews';
import { lazyComponent } from './lazy-component';
import { SignInScreen } from './SignInScreen';

// The console itself is fetched after sign-in: a first visit loads the sign-in form only.
const App = lazyComponent(() => import('./App').then((m) => m.App));

/** The web console (/admin/ on the service): sign in with the admin token, then the console over HTTP. */
export function WebRoot() {
  const baseUrl = window.location.origin;
  const [token, setToken] = useState<string | null>(() => readAdminToken());
  const [reason, setReason] = useState<string>();

  const signOut = useCallback((why?: string) => {
    clearAdminToken();
    setReason(why);
    setToken(null);
  }, []);
  const client = useMemo(() => {
    if (!token) return null;
    const onUnauthorized = () => signOut('The service no longer accepts this admin token. Sign in again.');
    // One live stream for every tab of the browser: tabs never use up the browser's connections.
    return withBrowserWideLiveEvents(createHttpAdminClient({ baseUrl, token, saveFile: saveBlobAsDownload, onUnauthorized }), { baseUrl, token, onUnauthorized });
  }, [baseUrl, token, signOut]);

  if (!client) {
    return (
      <SignInScreen
        baseUrl={baseUrl}
        reason={reason}
        onSignedIn={(next) => {
          saveAdminToken(next);
          setReason(undefined);
          setToken(next);
        }}
      />
    );
  }
  return (
    <AdminClientProvider client={client}>
      <Suspense fallback={<LoadingState label="Opening the console…" />}>
        <App onSignOut={() => signOut()} />
      </Suspense>
    </AdminClientProvider>
  );
}
