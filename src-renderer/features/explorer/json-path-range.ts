/**
 * Where a field of a JSON document sits in its text, so that the Explorer can highlight the field
 * a rejected statement was refused for. The service names it as a dotted path
 * (`context.contextActivities.parent[0].id`); extension keys are IRIs and contain dots
 * themselves (`result.extensions.http://example.com/x`), so object keys are matched longest first
 * against the rest of the path instead of splitting it on dots.
 */

export interface JsonRange {
  /** Offset of the first highlighted character (a member's key, or an array element). */
  start: number;
  /** Offset just past the value. */
  end: number;
  /** False when the path's last part is absent and the range is its deepest present parent. */
  exact: boolean;
}

interface JsonNode {
  start: number;
  end: number;
  members?: { key: string; start: number; node: JsonNode }[];
  elements?: JsonNode[];
}

/** A positional JSON parser: just enough structure to find a path, on text JSON.parse accepts. */
function parseNode(text: string, from: number): JsonNode {
  let i = from;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const begin = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++; // closing quote
    return JSON.parse(text.slice(begin, i)) as string;
  };
  const value = (): JsonNode => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: NonNullable<JsonNode['members']> = [];
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const keyStart = i;
          const key = str();
          ws();
          i++; // colon
          const node = value();
          members.push({ key, start: keyStart, node });
          ws();
          if (text[i++] === '}') break;
        }
      return { start, end: i, members };
    }
    if (c === '[') {
      i++;
      const elements: JsonNode[] = [];
      ws();
      if (text[i] === ']') i++;
      else
        for (;;) {
          elements.push(value());
          ws();
          if (text[i++] === ']') break;
        }
      return { start, end: i, elements };
    }
    if (c === '"') {
      str();
      return { start, end: i };
    }
    while (i < text.length && /[^\s,\]}]/.test(text[i]!)) i++;
    return { start, end: i };
  };
  return value();
}

/**
 * The range of `path` in `text` (JSON), or of its deepest present ancestor (`exact: false`);
 * null when the text is not JSON or not even the first part of the path is present.
 */
export function findJsonPathRange(text: string, path: string): JsonRange | null {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  const root = parseNode(text, 0);
  let node = root;
  let range: JsonRange | null = null;
  let rest = path.replace(/^\$\.?/, '');
  while (rest !== '') {
    const index = /^\[(\d+)\]\.?/.exec(rest);
    if (index) {
      const element = node.elements?.[Number(index[1])];
      if (!element) return range && { ...range, exact: false };
      node = element;
      range = { start: element.start, end: element.end, exact: true };
      rest = rest.slice(index[0].length);
      continue;
    }
    const candidates = (node.members ?? [])
      .filter(({ key }) => rest === key || rest.startsWith(`${key}.`) || rest.startsWith(`${key}[`))
      .sort((a, b) => b.key.length - a.key.length);
    const member = candidates[0];
    if (!member) return range && { ...range, exact: false };
    node = member.node;
    range = { start: member.start, end: member.node.end, exact: true };
    rest = rest.slice(member.key.length).replace(/^\./, '');
  }
  return range;
}

/** The statement's field path, without the batch index a service may prefix (`[2].actor` → `actor`). */
export function fieldWithinStatement(field: string): string {
  return field.replace(/^\[\d+\]\.?/, '');
}
