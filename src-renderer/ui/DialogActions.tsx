import { Button, Group } from '@mantine/core';
import type { ReactNode } from 'react';

/** The footer of every form dialog: Cancel, then the submit button that names the action. */
export function DialogActions({
  onCancel,
  submitLabel,
  pending,
  color,
  disabled,
  focusCancel,
}: {
  onCancel: () => void;
  submitLabel: ReactNode;
  pending: boolean;
  color?: string;
  disabled?: boolean;
  /** Puts the initial focus on Cancel: for destructive dialogs, where Enter must not confirm. */
  focusCancel?: boolean;
}) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel} data-autofocus={focusCancel || undefined}>
        Cancel
      </Button>
      <Button type="submit" color={color} disabled={disabled} loading={pending}>
        {submitLabel}
      </Button>
    </Group>
  );
}
