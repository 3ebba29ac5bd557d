/**
 * The lines of an NDJSON body as it streams in (admin/ndjson-lines.ts): split wherever the chunks
 * fall, a character cut between two chunks kept whole, blank lines skipped but counted, a line over
 * its limit reported and skipped, and the body stopped at its limit.
 */
import { describe, expect, it } from 'vitest';
import { ndjsonLines, NdjsonTooLargeError, type NdjsonLine } from '../../src-server/admin/ndjson-lines';

async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<Buffer | string> {
  for (const part of parts) yield part;
}

async function lines(body: AsyncIterable<Buffer | string>, maxBytes = 1000, maxLineBytes = 100): Promise<NdjsonLine[]> {
  const out: NdjsonLine[] = [];
  for await (const line of ndjsonLines(body, { maxBytes, maxLineBytes })) out.push(line);
  return out;
}

describe('NDJSON lines', () => {
  it('splits lines across chunks, keeps characters cut between chunks, numbers every line', async () => {
    const text = Buffer.from('{"a":"é"}\n\n{"b":2}\r\n  \n{"c":3}');
    const cut = text.indexOf(Buffer.from('é')) + 1; // inside the two bytes of é
    expect(await lines(chunks(text.subarray(0, cut), text.subarray(cut, cut + 5), text.subarray(cut + 5)))).toEqual([
      { line: 1, text: '{"a":"é"}' },
      { line: 3, text: '{"b":2}\r' },
      { line: 5, text: '{"c":3}' },
    ]);
  });

  it('reports a line over its limit and goes on with the next', async () => {
    const long = 'x'.repeat(60);
    expect(await lines(chunks(`${long}`, `${long}\n{"ok":1}\n`))).toEqual([
      { line: 1, tooLong: true },
      { line: 2, text: '{"ok":1}' },
    ]);
  });

  it('stops at the body limit', async () => {
    await expect(lines(chunks('{"a":1}\n'.repeat(10), '{"a":1}\n'.repeat(10)), 100)).rejects.toBeInstanceOf(NdjsonTooLargeError);
  });
});
