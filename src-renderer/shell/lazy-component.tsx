import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { lazy, type ComponentType } from 'react';

/**
 * A component whose code is fetched on its first render (React.lazy, under a Suspense that shows
 * a LoadingState): each screen is a chunk of its own, so the first screen does not wait for the
 * code of every other. When the chunk cannot be fetched (the service stopped, or was upgraded
 * while this page stayed open and the old chunk is gone) the component is a message with a way to
 * reload, not a blank console.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => {
    try {
      return { default: await load() };
    } catch {
      return { default: NotLoaded as ComponentType<P> };
    }
  });
}

function NotLoaded() {
  return (
    <Alert color="red" title="This part of the console did not load" role="alert">
      <Stack gap="xs">
        <Text size="sm">The service may have stopped, or been updated since this page was opened.</Text>
        <Group>
          <Button size="xs" variant="light" color="red" onClick={() => window.location.reload()}>
            Reload the console
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
