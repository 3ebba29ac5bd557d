import { AppShell, Badge, Burger, Group, NavLink, SegmentedControl, Text, Title, Tooltip, useMantineColorScheme } from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Suspense, type ReactNode } from 'react';
import { CapacityBadge } from '../features/connection/CapacityBadge';
import { useConnectionInfo } from '../features/connection/queries';
import { routeHref, type Screen } from '../routes';
import { LoadingState } from '../ui/StateViews';
import { lazyComponent } from './lazy-component';
import { useRoute } from './use-route';

// Each screen's code is fetched when it is first shown.
const StoresScreen = lazyComponent(() => import('../features/stores/StoresScreen').then((m) => m.StoresScreen));
const ApiKeysScreen = lazyComponent(() => import('../features/api-keys/ApiKeysScreen').then((m) => m.ApiKeysScreen));
const ExplorerScreen = lazyComponent(() => import('../features/explorer/ExplorerScreen').then((m) => m.ExplorerScreen));
const IngestionScreen = lazyComponent(() => import('../features/ingestion/IngestionScreen').then((m) => m.IngestionScreen));
const BenchScreen = lazyComponent(() => import('../features/bench/BenchScreen').then((m) => m.BenchScreen));
const ForwardingScreen = lazyComponent(() => import('../features/forwarding/ForwardingScreen').then((m) => m.ForwardingScreen));
const AuditScreen = lazyComponent(() => import('../features/audit/AuditScreen').then((m) => m.AuditScreen));
const ConnectionScreen = lazyComponent(() => import('../features/connection/ConnectionScreen').then((m) => m.ConnectionScreen));

const NAV: { screen: Screen; label: string; description: string }[] = [
  { screen: 'stores', label: 'Stores', description: 'Endpoints, counts, test statements' },
  { screen: 'explorer', label: 'Statement Explorer', description: 'Search every statement received' },
  { screen: 'ingestion', label: 'Ingestion', description: 'Statements over time' },
  { screen: 'bench', label: 'Test Bench', description: 'Launch a course, watch the attempt' },
  { screen: 'keys', label: 'Settings → API Keys', description: 'Credentials for content' },
  { screen: 'forwarding', label: 'Forwarding', description: 'Send statements on: an LRS, a webhook' },
  { screen: 'audit', label: 'Audit log', description: 'Who did what, and when' },
  { screen: 'connection', label: 'Connection', description: 'The service this console manages' },
];

export function App({ headerExtra, onSignOut }: { headerExtra?: ReactNode; onSignOut?: () => void }) {
  const [route, navigate] = useRoute();
  const [navOpened, { toggle: toggleNav, close: closeNav }] = useDisclosure(false);

  let screen: ReactNode;
  switch (route.screen) {
    case 'stores':
      screen = <StoresScreen />;
      break;
    case 'keys':
      screen = <ApiKeysScreen store={route.store} onStoreChange={(store) => navigate(store ? { screen: 'keys', store } : { screen: 'keys' })} />;
      break;
    case 'explorer':
      screen = (
        <ExplorerScreen
          store={route.store}
          filters={route.filters}
          onNavigate={(store, filters) => navigate({ screen: 'explorer', ...(store ? { store } : {}), ...(filters ? { filters } : {}) })}
        />
      );
      break;
    case 'ingestion':
      screen = <IngestionScreen />;
      break;
    case 'bench':
      screen = (
        <BenchScreen
          store={route.store}
          registration={route.registration}
          onNavigate={(store, registration) => navigate({ screen: 'bench', ...(store ? { store } : {}), ...(registration ? { registration } : {}) })}
        />
      );
      break;
    case 'forwarding':
      screen = <ForwardingScreen store={route.store} onStoreChange={(store) => navigate(store ? { screen: 'forwarding', store } : { screen: 'forwarding' })} />;
      break;
    case 'audit':
      screen = <AuditScreen />;
      break;
    case 'connection':
      screen = <ConnectionScreen {...(onSignOut ? { onSignOut } : {})} />;
      break;
  }

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 260, breakpoint: 'sm', collapsed: { mobile: !navOpened } }} padding="lg">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={navOpened} onClick={toggleNav} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={3}>Lore LRS</Title>
            <DeploymentBadge />
            <CapacityBadge />
            {headerExtra}
          </Group>
          <ColorSchemeControl />
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Screens">
        {NAV.map((item) => (
          <NavLink
            key={item.screen}
            href={routeHref({ screen: item.screen })}
            label={item.label}
            description={item.description}
            active={route.screen === item.screen}
            aria-current={route.screen === item.screen ? 'page' : undefined}
            onClick={closeNav}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense fallback={<LoadingState label="Loading…" />}>{screen}</Suspense>
      </AppShell.Main>
    </AppShell>
  );
}

/** The console always shows which deployment it manages. */
function DeploymentBadge() {
  const info = useConnectionInfo();
  if (!info) return null;
  const kind = info.kind === 'web' ? 'Web console' : info.kind === 'local' ? 'Local' : 'Remote';
  return (
    <Tooltip label={`Managing ${info.url}`}>
      <Badge variant="light" size="lg" tt="none" data-testid="deployment">
        <Text span size="sm" fw={600}>
          {kind}:
        </Text>{' '}
        <Text span size="sm">
          {info.label}
        </Text>
      </Badge>
    </Tooltip>
  );
}

const COLOR_SCHEMES: { label: string; value: MantineColorScheme }[] = [
  { label: 'Light', value: 'light' },
  { label: 'Dark', value: 'dark' },
  { label: 'System', value: 'auto' },
];

function ColorSchemeControl() {
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  return (
    <SegmentedControl
      size="xs"
      aria-label="Colour scheme"
      data={COLOR_SCHEMES}
      value={colorScheme}
      onChange={(value) => setColorScheme(value as MantineColorScheme)}
    />
  );
}
