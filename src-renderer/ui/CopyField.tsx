import { ActionIcon, Code, Group, Popover, Text, Tooltip } from '@mantine/core';
import { useRef, type RefObject } from 'react';
import { useCopyText } from './use-copy-text';
import { CheckIcon, CopyIcon } from './icons';

/** A value shown in full with a button that copies it (the button says what it copies). */
export function CopyField({ label, value, block = false }: { label: string; value: string; block?: boolean }) {
  const shown = useRef<HTMLElement>(null);
  return (
    <div>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyValueButton label={label} value={value} shown={shown} />
      </Group>
      <Code ref={shown} block={block} style={{ wordBreak: 'break-all', whiteSpace: block ? 'pre-wrap' : undefined }} data-copy-value={label}>
        {value}
      </Code>
    </div>
  );
}

/**
 * The copy button. Where the page can copy nothing (copy-text.ts), the value is selected, in
 * `shown` when the button sits beside it, else in a popover under the button, with the keys to press.
 */
export function CopyValueButton({ label, value, shown }: { label: string; value: string; shown?: RefObject<HTMLElement | null> }) {
  const { copy, reset, copied, pressKeys, selectWhenShown } = useCopyText(value, shown);
  const button = (
    <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={() => void copy()} aria-label={`Copy ${label.toLowerCase()}`}>
      {copied ? <CheckIcon /> : <CopyIcon />}
    </ActionIcon>
  );
  if (pressKeys && !shown) {
    return (
      <Popover opened onClose={reset} withArrow position="bottom-end">
        <Popover.Target>{button}</Popover.Target>
        <Popover.Dropdown maw={420}>
          <Text size="xs" mb={4} role="status">
            {pressKeys}
          </Text>
          <Code ref={selectWhenShown} block style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
            {value}
          </Code>
        </Popover.Dropdown>
      </Popover>
    );
  }
  return (
    <Tooltip label={copied ? 'Copied' : (pressKeys ?? `Copy ${label.toLowerCase()}`)} withArrow {...(pressKeys ? { opened: true } : {})}>
      {button}
    </Tooltip>
  );
}
