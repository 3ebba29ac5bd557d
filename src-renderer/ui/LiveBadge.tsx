import { Badge } from '@mantine/core';
import type { LiveState } from '../api/hooks';

const WORDS: Record<LiveState, string> = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' };

/** Whether a view follows what arrives: "Live" only while its stream is up, "Reconnecting…" while it is down. */
export function LiveBadge({ state, paused }: { state: LiveState; paused?: string | undefined }) {
  return (
    <Badge color={paused === undefined && state === 'live' ? 'teal' : state === 'reconnecting' ? 'orange' : 'gray'} variant="dot" data-testid="live-indicator" data-state={state}>
      {paused ?? WORDS[state]}
    </Badge>
  );
}
