import { describe, expect, it } from 'vitest';
import { keySnippets } from '../../src-renderer/features/api-keys/key-snippets';

const key = { endpoint: 'http://127.0.0.1:8411/demo/xAPI', id: 'lore_test_abc', secret: 's3cret', token: 'lore_test_abc.s3cret', basic: 'bG9yZV90ZXN0X2FiYzpzM2NyZXQ=' };

describe('keySnippets', () => {
  it('gives endpoint, key and secret the way authoring tools ask for them', () => {
    expect(keySnippets(key).authoringTool).toBe('Endpoint: http://127.0.0.1:8411/demo/xAPI/\nKey (user name): lore_test_abc\nSecret (password): s3cret');
  });

  it('gives the Basic authorization header', () => {
    expect(keySnippets(key).basicHeader).toBe('Authorization: Basic bG9yZV90ZXN0X2FiYzpzM2NyZXQ=');
  });

  it('gives a curl command that posts a statement with the bearer token and the version header', () => {
    const { curl } = keySnippets(key);
    expect(curl).toContain("curl -X POST 'http://127.0.0.1:8411/demo/xAPI/statements'");
    expect(curl).toContain("-H 'Authorization: Bearer lore_test_abc.s3cret'");
    expect(curl).toContain("-H 'X-Experience-API-Version: 1.0.3'");
    const body = /-d '(.*)'$/.exec(curl)?.[1];
    expect(JSON.parse(body ?? 'null')).toMatchObject({ actor: { mbox: 'mailto:ada@example.com' } });
  });
});
