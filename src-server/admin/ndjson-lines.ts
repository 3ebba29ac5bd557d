/**
 * The lines of an NDJSON body as it streams in (docs/import.md): never the whole body in memory, at
 * most one line. A line longer than `maxLineBytes` is reported as too long and skipped; the body as
 * a whole stops at `maxBytes` (NdjsonTooLargeError). Line numbers count from 1, blank lines too.
 */
import { StringDecoder } from 'node:string_decoder';

export type NdjsonLine = { line: number; text: string } | { line: number; tooLong: true };

export class NdjsonTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The file is larger than the limit of ${maxBytes} bytes; import it in parts.`);
    this.name = 'NdjsonTooLargeError';
  }
}

export async function* ndjsonLines(body: AsyncIterable<Buffer | string>, limits: { maxBytes: number; maxLineBytes: number }): AsyncGenerator<NdjsonLine> {
  const decoder = new StringDecoder('utf8');
  let total = 0;
  let line = 1;
  let current = '';
  let currentBytes = 0;
  let tooLong = false;
  const finish = (): NdjsonLine | null => {
    const done: NdjsonLine | null = tooLong ? { line, tooLong: true } : current.trim() === '' ? null : { line, text: current };
    line += 1;
    current = '';
    currentBytes = 0;
    tooLong = false;
    return done;
  };
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += bytes.length;
    if (total > limits.maxBytes) throw new NdjsonTooLargeError(limits.maxBytes);
    const text = decoder.write(bytes);
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n', start);
      const piece = text.slice(start, end === -1 ? undefined : end);
      if (!tooLong) {
        currentBytes += Buffer.byteLength(piece);
        if (currentBytes > limits.maxLineBytes) {
          tooLong = true;
          current = '';
        } else current += piece;
      }
      if (end === -1) break;
      const done = finish();
      if (done) yield done;
      start = end + 1;
    }
  }
  current += decoder.end();
  const last = finish();
  if (last) yield last;
}
