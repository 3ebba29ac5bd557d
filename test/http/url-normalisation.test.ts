import { describe, expect, it } from 'vitest';
import { normaliseXapiSegment } from '../../src-server/http/xapi-path';

describe('xAPI path normalisation', () => {
  it.each([
    ['/demo/xAPI/statements', '/demo/xapi/statements'],
    ['/demo/XAPI/statements?limit=1', '/demo/xapi/statements?limit=1'],
    ['/XAPI/about', '/xapi/about'],
    ['/xAPI?x=1', '/xapi?x=1'],
    ['/admin/api/stores', '/admin/api/stores'],
    ['/demo/xapis/statements', '/demo/xapis/statements'],
    ['/demo/other/xAPI/statements', '/demo/other/xAPI/statements'],
  ])('rewrites %s to %s', (input, expected) => {
    expect(normaliseXapiSegment(input)).toBe(expected);
  });
});
