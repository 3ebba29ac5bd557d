/**
 * The few Markdown shapes the guides in docs/ use, as blocks the console draws (no Markdown
 * library for one page of text): headings, paragraphs, bullet and numbered lists, fenced code.
 * Inline: `code`, **bold** and [text](url) links.
 */
export type GuideBlock =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'code'; text: string };

export type GuideInline = { kind: 'text' | 'code' | 'bold'; text: string } | { kind: 'link'; text: string; href: string };

export function guideBlocks(markdown: string): GuideBlock[] {
  const blocks: GuideBlock[] = [];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      endParagraph();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      blocks.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const item = /^\s*(?:([-*])|(\d+)\.)\s+(.*)$/.exec(line);
    if (heading) {
      endParagraph();
      blocks.push({ kind: 'heading', level: heading[1]!.length as 1 | 2 | 3, text: heading[2]!.trim() });
    } else if (item) {
      endParagraph();
      const ordered = item[2] !== undefined;
      const last = blocks.at(-1);
      if (last?.kind === 'list' && last.ordered === ordered) last.items.push(item[3]!);
      else blocks.push({ kind: 'list', ordered, items: [item[3]!] });
    } else if (line.trim() === '') {
      endParagraph();
    } else if (/^\s+\S/.test(line) && blocks.at(-1)?.kind === 'list' && paragraph.length === 0) {
      // A continuation line of the last list item.
      const list = blocks.at(-1) as Extract<GuideBlock, { kind: 'list' }>;
      list.items[list.items.length - 1] += ` ${line.trim()}`;
    } else {
      paragraph.push(line.trim());
    }
  }
  endParagraph();
  return blocks;
}

export function guideInlines(text: string): GuideInline[] {
  const parts: GuideInline[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) parts.push({ kind: 'text', text: text.slice(at, match.index) });
    if (match[1] !== undefined) parts.push({ kind: 'code', text: match[1] });
    else if (match[2] !== undefined) parts.push({ kind: 'bold', text: match[2] });
    else parts.push({ kind: 'link', text: match[3]!, href: match[4]! });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ kind: 'text', text: text.slice(at) });
  return parts;
}
