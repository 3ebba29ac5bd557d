import { AppShell, Badge, Group, Paper, SegmentedControl, Stack, Text, Title, useMantineColorScheme } from '@mantine/core';
import type { MantineColorScheme } from '@mantine/core';
import type { LoreBridge } from '../src-main/bridge-types';
import { serviceStatusText } from './service-status-text';
import { useServiceStatus } from './use-service-status';

export function App({ bridge }: { bridge: LoreBridge | undefined }) {
  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group gap="sm">
            <Title order={3}>Lore LRS</Title>
            {bridge ? <DesktopServiceBadge bridge={bridge} /> : <Badge variant="light">web console</Badge>}
          </Group>
          <ColorSchemeControl />
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Paper withBorder p="lg" maw={640}>
          <Stack gap="xs">
            <Title order={4}>Learning Record Store</Title>
            <Text c="dimmed">
              {bridge
                ? 'The desktop app runs the LRS service beside this window.'
                : 'You are using the web console of a Lore LRS service.'}
            </Text>
          </Stack>
        </Paper>
      </AppShell.Main>
    </AppShell>
  );
}

function DesktopServiceBadge({ bridge }: { bridge: LoreBridge }) {
  const { label, color, detail } = serviceStatusText(useServiceStatus(bridge));
  return (
    <Badge color={color} variant="light" title={detail}>
      {label}
    </Badge>
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
