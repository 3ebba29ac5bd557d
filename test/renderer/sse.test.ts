import { describe, expect, it } from 'vitest';
import { createSseParser, reconnectDelayMs } from '../../src-renderer/api/sse';

describe('createSseParser', () => {
  it('yields an event once its blank line arrives, across chunk boundaries', () => {
    const parser = createSseParser();
    expect(parser.push('event: statem')).toEqual([]);
    expect(parser.push('ent\ndata: {"seq":1}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'statement', data: '{"seq":1}' }]);
  });

  it('joins data lines, ignores comments and accepts CRLF', () => {
    const parser = createSseParser();
    expect(parser.push(': keep-alive\r\n\r\nid: 7\r\ndata: a\r\ndata: b\r\n\r')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'message', data: 'a\nb', id: '7' }]);
  });

  it('yields several events of one chunk in order', () => {
    const parser = createSseParser();
    const events = parser.push('event: statement\ndata: 1\n\nevent: statement\ndata: 2\n\n');
    expect(events.map((e) => e.data)).toEqual(['1', '2']);
  });
});

describe('reconnectDelayMs', () => {
  it('doubles from half a second and stops at 15 seconds', () => {
    expect([0, 1, 2, 3, 10].map(reconnectDelayMs)).toEqual([500, 1000, 2000, 4000, 15_000]);
  });
});
