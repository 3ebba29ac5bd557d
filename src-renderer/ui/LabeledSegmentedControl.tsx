import { SegmentedControl, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** A SegmentedControl with a visible label that screen readers announce with it. */
export function LabeledSegmentedControl<T extends string>({
  id,
  label,
  value,
  onChange,
  data,
  children,
}: {
  id: string;
  label: string;
  value: T;
  onChange: (value: T) => void;
  data: Array<{ value: T; label: string }>;
  /** Help text under the control. */
  children?: ReactNode;
}) {
  return (
    <div>
      <Text size="sm" fw={500} id={id}>
        {label}
      </Text>
      <SegmentedControl aria-labelledby={id} value={value} onChange={(next) => onChange(next as T)} data={data} />
      {children}
    </div>
  );
}
