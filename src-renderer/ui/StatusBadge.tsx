import { Badge } from '@mantine/core';

const STATUS_COLORS: Record<string, string> = {
  accepted: 'teal',
  voided: 'gray',
  rejected: 'red',
  warnings: 'yellow',
  active: 'teal',
  expired: 'orange',
  revoked: 'red',
  test: 'violet',
  live: 'blue',
};

/**
 * A status word in a badge. Its width is the word's: a table column or a flex row may not squeeze
 * it (Mantine's label clips with an ellipsis, which let a narrow column show "REJECT…").
 */
export function StatusBadge({ value }: { value: string }) {
  return (
    <Badge variant="light" color={STATUS_COLORS[value] ?? 'gray'} data-status={value} styles={{ root: { minWidth: 'max-content', flexShrink: 0 }, label: { overflow: 'visible' } }}>
      {value}
    </Badge>
  );
}
