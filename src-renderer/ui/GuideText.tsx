import { Anchor, Code, List, Stack, Text, Title } from '@mantine/core';
import { Fragment } from 'react';
import { guideBlocks, guideInlines } from './guide-blocks';

function Inline({ text }: { text: string }) {
  return (
    <>
      {guideInlines(text).map((part, i) => {
        if (part.kind === 'code') return <Code key={i}>{part.text}</Code>;
        if (part.kind === 'bold') return <strong key={i}>{part.text}</strong>;
        // Only web links leave the console, in a new window; anything else is shown as text.
        if (part.kind === 'link') {
          return /^https?:\/\//.test(part.href) ? (
            <Anchor key={i} href={part.href} target="_blank" rel="noreferrer">
              {part.text}
            </Anchor>
          ) : (
            <Fragment key={i}>{part.text}</Fragment>
          );
        }
        return <Fragment key={i}>{part.text}</Fragment>;
      })}
    </>
  );
}

/** A guide of docs/ (Markdown) drawn with Mantine. */
export function GuideText({ markdown }: { markdown: string }) {
  return (
    <Stack gap="sm">
      {guideBlocks(markdown).map((block, i) => {
        switch (block.kind) {
          case 'heading':
            return (
              <Title key={i} order={block.level + 1 as 2 | 3 | 4} mt={block.level === 1 ? 0 : 'sm'}>
                {block.text}
              </Title>
            );
          case 'paragraph':
            return (
              <Text key={i} size="sm">
                <Inline text={block.text} />
              </Text>
            );
          case 'list':
            return (
              <List key={i} type={block.ordered ? 'ordered' : 'unordered'} size="sm" spacing={4}>
                {block.items.map((item, j) => (
                  <List.Item key={j}>
                    <Inline text={item} />
                  </List.Item>
                ))}
              </List>
            );
          case 'code':
            return (
              <Code key={i} block>
                {block.text}
              </Code>
            );
        }
      })}
    </Stack>
  );
}
