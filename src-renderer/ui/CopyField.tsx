import { ActionIcon, Code, CopyButton, Group, Text, Tooltip } from '@mantine/core';
import { CheckIcon, CopyIcon } from './icons';

/** A value shown in full with a button that copies it (the button says what it copies). */
export function CopyField({ label, value, block = false }: { label: string; value: string; block?: boolean }) {
  return (
    <div>
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="sm" fw={500}>
          {label}
        </Text>
        <CopyValueButton label={label} value={value} />
      </Group>
      <Code block={block} style={{ wordBreak: 'break-all', whiteSpace: block ? 'pre-wrap' : undefined }} data-copy-value={label}>
        {value}
      </Code>
    </div>
  );
}

export function CopyValueButton({ label, value }: { label: string; value: string }) {
  return (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : `Copy ${label.toLowerCase()}`} withArrow>
          <ActionIcon
            variant="subtle"
            color={copied ? 'teal' : 'gray'}
            onClick={copy}
            aria-label={`Copy ${label.toLowerCase()}`}
          >
            {copied ? <CheckIcon /> : <CopyIcon />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}
