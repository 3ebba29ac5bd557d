/** What a person pastes into an authoring tool or a terminal after creating a key. */
export interface KeyCredentials {
  /** The Store's xAPI endpoint, e.g. http://127.0.0.1:8411/demo/xAPI/ */
  endpoint: string;
  id: string;
  secret: string;
  token: string;
  basic: string;
}

export interface KeySnippets {
  /** Endpoint, key and secret the way Storyline, Captivate, iSpring… ask for them (Basic auth). */
  authoringTool: string;
  /** The `Authorization` header value for tools that take a header. */
  basicHeader: string;
  /** A curl command that sends one statement with the key. */
  curl: string;
}

function withSlash(endpoint: string): string {
  return endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
}

export function keySnippets(key: KeyCredentials): KeySnippets {
  const endpoint = withSlash(key.endpoint);
  const statement = JSON.stringify({
    actor: { mbox: 'mailto:ada@example.com', name: 'Ada' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { id: 'http://example.com/courses/module-1', definition: { name: { 'en-US': 'Module 1' } } },
  });
  return {
    authoringTool: `Endpoint: ${endpoint}\nKey (user name): ${key.id}\nSecret (password): ${key.secret}`,
    basicHeader: `Authorization: Basic ${key.basic}`,
    curl: [
      `curl -X POST '${endpoint}statements'`,
      `  -H 'Authorization: Bearer ${key.token}'`,
      `  -H 'X-Experience-API-Version: 1.0.3'`,
      `  -H 'Content-Type: application/json'`,
      `  -d '${statement}'`,
    ].join(' \\\n'),
  };
}
