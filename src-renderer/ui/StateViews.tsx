import { Alert, Button, Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { AdminError } from '../api/admin-client';

export function LoadingState({ label }: { label: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" />
        <Text c="dimmed">{label}</Text>
      </Group>
    </Center>
  );
}

/** What went wrong, in the service's words, and a way to try again. */
export function ErrorState({ title, error, onRetry }: { title: string; error: AdminError; onRetry?: () => void }) {
  return (
    <Alert color="red" title={title} role="alert">
      <Stack gap="xs">
        <Text size="sm">{error.message}</Text>
        {error.status === 0 && <Text size="sm">Check that the service is running, then try again.</Text>}
        {onRetry && (
          <Group>
            <Button size="xs" variant="light" color="red" onClick={onRetry}>
              Try again
            </Button>
          </Group>
        )}
      </Stack>
    </Alert>
  );
}

/** A first-time user's next step, where a list has nothing yet. */
export function EmptyState({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack align="center" gap="sm" ta="center">
        <Title order={4}>{title}</Title>
        <Text c="dimmed" maw={560}>
          {children}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}
