import { Box, Button, Code, Group, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useCopyText } from '../../ui/use-copy-text';
import { fieldWithinStatement, findJsonPathRange } from './json-path-range';

/** The statement as received, pretty-printed, with the field at fault marked and scrolled into view. */
export function StatementJson({ statement, field }: { statement: unknown; field?: string | undefined }) {
  const text = JSON.stringify(statement, null, 2) ?? String(statement);
  const range = field ? findJsonPathRange(text, fieldWithinStatement(field)) : null;
  const mark = useRef<HTMLElement>(null);
  const shown = useRef<HTMLElement>(null);
  const copy = useCopyText(text, shown);
  useEffect(() => {
    mark.current?.scrollIntoView?.({ block: 'center' });
  }, [text, field]);

  return (
    <Box>
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={500}>
          JSON as received
        </Text>
        {/* Where the page can copy nothing (plain http from another machine, ui/copy-text.ts), the JSON below is selected. */}
        <Button size="xs" variant="light" color={copy.copied ? 'teal' : undefined} onClick={() => void copy.copy()}>
          {copy.copied ? 'Copied' : (copy.pressKeys ?? 'Copy JSON')}
        </Button>
      </Group>
      {field && range && !range.exact && (
        <Text size="xs" c="dimmed" mb={4}>
          “{field}” is missing; its place is marked.
        </Text>
      )}
      {field && !range && (
        <Text size="xs" c="dimmed" mb={4}>
          “{field}” is missing from the statement.
        </Text>
      )}
      <Code ref={shown} block style={{ maxHeight: '60vh', overflow: 'auto' }} data-testid="statement-json">
        {range ? (
          <>
            {text.slice(0, range.start)}
            <mark
              ref={mark}
              data-field={field}
              style={{ background: 'var(--mantine-color-red-light)', color: 'var(--mantine-color-red-light-color)', outline: '1px solid var(--mantine-color-red-6)', borderRadius: 2 }}
            >
              {text.slice(range.start, range.end)}
            </mark>
            {text.slice(range.end)}
          </>
        ) : (
          text
        )}
      </Code>
    </Box>
  );
}
