import { Badge } from '@mantine/core';

const STATUS_COLORS: Record<string, string> = {
  accepted: 'teal',
  voided: 'gray',
  rejected: 'red',
  active: 'teal',
  expired: 'orange',
  revoked: 'red',
  test: 'violet',
  live: 'blue',
};

export function StatusBadge({ value }: { value: string }) {
  return (
    <Badge variant="light" color={STATUS_COLORS[value] ?? 'gray'} data-status={value}>
      {value}
    </Badge>
  );
}
