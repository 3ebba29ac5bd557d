import { Text, Tooltip } from '@mantine/core';
import { dateTime, relativeTime } from './format';

/** A time as "3 minutes ago", the date and time itself on hover: a table's "when" cell. */
export function RelativeTime({ iso }: { iso: string }) {
  return (
    <Tooltip label={dateTime(iso)}>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        {relativeTime(iso)}
      </Text>
    </Tooltip>
  );
}
