/**
 * The hostile request generator: request number i of seed s is always the same request (its own
 * PRNG is derived from both), so one failing request reproduces alone with `--seed s --only i`.
 *
 * Each request picks an endpoint of the service (every xAPI resource under the three addresses,
 * every admin route, the web console, unknown paths), then breaks some of: the method, the query,
 * the headers, the body. Bodies start from a valid sample of the endpoint and are truncated,
 * retyped, inflated, nested, mis-encoded or replaced.
 */
import { createRng, uuidFrom, type Rng } from '../lib/prng';

export interface HostileContext {
  slug: string;
  otherSlug: string;
  /** A Store the generator may delete, empty and revoke keys of. */
  victimSlug: string;
  victimKeyId: string;
  basic: string;
  bearer: string;
  otherBasic: string;
  keyId: string;
  /** A real key id whose secret the generator gets wrong: failed attempts back off this id, never keyId's. */
  decoyKeyId: string;
  adminToken: string;
  statementId: string;
}

export interface HostileRequest {
  index: number;
  label: string;
  method: string;
  path: string;
  /** Header pairs; a name may repeat. */
  headers: Array<[string, string]>;
  body: Buffer | null;
  /** Sent over a bare socket: methods, header bytes or framing that an HTTP client refuses to write. */
  raw: boolean;
}

interface Endpoint {
  name: string;
  methods: string[];
  path: (ctx: HostileContext, rng: Rng) => string;
  query: (ctx: HostileContext, rng: Rng) => Array<[string, string]>;
  body: ((ctx: HostileContext, rng: Rng) => unknown) | null;
  kind: 'xapi' | 'admin' | 'public';
}

const ACTIVITY = 'http://lore.example/hostile/activity';
const AGENT = { mbox: 'mailto:hostile@example.com', objectType: 'Agent' };

function sampleStatement(rng: Rng): Record<string, unknown> {
  return {
    id: uuidFrom(rng),
    actor: { ...AGENT, name: 'Hostile' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered' } },
    object: {
      id: ACTIVITY,
      definition: { name: { 'en-US': 'Q' }, type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: 'choice', choices: [{ id: 'a', description: { 'en-US': 'A' } }] },
    },
    result: { score: { scaled: 0.5, raw: 5, min: 0, max: 10 }, success: true, completion: true, response: 'a', duration: 'PT1M' },
    context: { registration: uuidFrom(rng), contextActivities: { parent: [{ id: 'http://lore.example/hostile/course' }] }, extensions: { 'http://lore.example/x': { n: 1 } } },
    timestamp: '2026-11-21T10:00:00.000Z',
  };
}

const XAPI_PREFIXES = (ctx: HostileContext, rng: Rng) =>
  rng.pick([`/${ctx.slug}/xAPI`, `/${ctx.slug}/xapi`, '/xapi', '/XAPI', `/${ctx.otherSlug}/xAPI`, '/no-such-store/xAPI', `/${ctx.slug}/XaPi`]);

const agentParam = () => ['agent', JSON.stringify(AGENT)] as [string, string];

const ENDPOINTS: Endpoint[] = [
  {
    name: 'statements',
    kind: 'xapi',
    methods: ['POST', 'PUT', 'GET', 'HEAD', 'DELETE'],
    path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/statements`,
    query: (ctx, rng) =>
      rng.pick<Array<[string, string]>>([
        [],
        [['statementId', ctx.statementId]],
        [['statementId', uuidFrom(rng)]],
        [['voidedStatementId', ctx.statementId]],
        [agentParam(), ['verb', 'http://adlnet.gov/expapi/verbs/answered'], ['limit', '5']],
        [['activity', ACTIVITY], ['related_activities', 'true'], ['format', 'canonical']],
        [['since', '2026-01-01T00:00:00Z'], ['until', '2027-01-01T00:00:00Z'], ['ascending', 'true']],
        [['attachments', 'true'], ['limit', '2']],
        [['registration', uuidFrom(rng)], ['related_agents', 'true'], agentParam()],
        [['more', Buffer.from(JSON.stringify({ v: 1, store: ctx.slug, query: { afterSeq: 1 } })).toString('base64url')]],
      ]),
    body: (_ctx, rng) => (rng.chance(0.5) ? sampleStatement(rng) : Array.from({ length: rng.int(1, 4) }, () => sampleStatement(rng))),
  },
  ...(['state', 'activityProfile', 'agentProfile'] as const).map(
    (resource): Endpoint => ({
      name: resource,
      kind: 'xapi',
      methods: ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'],
      path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/${resource === 'state' ? 'activities/state' : resource === 'activityProfile' ? 'activities/profile' : 'agents/profile'}`,
      query: (_ctx, rng) => {
        const id = rng.pick(['bookmark', 'doc-1', 'x']);
        if (resource === 'state') {
          return rng.pick<Array<[string, string]>>([
            [['activityId', ACTIVITY], agentParam(), ['stateId', id]],
            [['activityId', ACTIVITY], agentParam(), ['stateId', id], ['registration', uuidFrom(rng)]],
            [['activityId', ACTIVITY], agentParam()],
            [['activityId', ACTIVITY], agentParam(), ['since', '2026-01-01T00:00:00Z']],
          ]);
        }
        const owner: [string, string] = resource === 'activityProfile' ? ['activityId', ACTIVITY] : agentParam();
        return rng.pick<Array<[string, string]>>([[owner, ['profileId', id]], [owner], [owner, ['since', '2026-01-01T00:00:00Z']]]);
      },
      body: (_ctx, rng) => ({ bookmark: `page-${rng.int(1, 50)}`, progress: rng.next(), nested: { a: [1, 2, { b: 'c' }] } }),
    }),
  ),
  {
    name: 'activities',
    kind: 'xapi',
    methods: ['GET', 'HEAD', 'POST'],
    path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/activities`,
    query: () => [['activityId', ACTIVITY]],
    body: null,
  },
  {
    name: 'agents',
    kind: 'xapi',
    methods: ['GET', 'HEAD', 'POST'],
    path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/agents`,
    query: () => [agentParam()],
    body: null,
  },
  {
    name: 'about',
    kind: 'xapi',
    methods: ['GET', 'HEAD', 'POST', 'PUT'],
    path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/about`,
    query: () => [],
    body: null,
  },
  {
    name: 'alternate request syntax',
    kind: 'xapi',
    methods: ['POST'],
    path: (ctx, rng) => `${XAPI_PREFIXES(ctx, rng)}/${rng.pick(['statements', 'activities/state', 'agents/profile', 'activities', 'about'])}`,
    query: (_ctx, rng) => [['method', rng.pick(['GET', 'PUT', 'POST', 'DELETE', 'HEAD', 'PATCH', 'get', ''])]],
    body: (ctx, rng) => {
      const form = new URLSearchParams();
      form.set('Authorization', `Basic ${ctx.basic}`);
      form.set('X-Experience-API-Version', '1.0.3');
      if (rng.chance(0.7)) form.set('content', JSON.stringify(sampleStatement(rng)));
      if (rng.chance(0.5)) form.set('Content-Type', 'application/json');
      if (rng.chance(0.3)) form.set('activityId', ACTIVITY);
      if (rng.chance(0.3)) form.set('agent', JSON.stringify(AGENT));
      if (rng.chance(0.3)) form.set('stateId', 'bookmark');
      return { form: form.toString() };
    },
  },
  {
    name: 'admin stores',
    kind: 'admin',
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    path: () => '/admin/api/stores',
    query: () => [],
    body: (_ctx, rng) => ({ slug: `fuzz-${rng.int(0, 99)}`, name: 'Fuzz', environment: rng.pick(['test', 'live']) }),
  },
  {
    name: 'admin store',
    kind: 'admin',
    methods: ['GET', 'PATCH', 'DELETE', 'PUT'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.victimSlug, 'nope', 'a', 'x'.repeat(300), '%00', '..%2f..', `fuzz-${rng.int(0, 99)}`])}`,
    query: (ctx, rng) => (rng.chance(0.3) ? [['confirm', ctx.victimSlug]] : []),
    body: () => ({ name: 'Renamed' }),
  },
  {
    name: 'admin store (read)',
    kind: 'admin',
    methods: ['GET'],
    path: (ctx) => `/admin/api/stores/${ctx.slug}`,
    query: () => [],
    body: null,
  },
  {
    name: 'admin keys',
    kind: 'admin',
    methods: ['GET', 'POST'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.slug, ctx.victimSlug, 'nope'])}/keys`,
    query: () => [],
    body: (_ctx, rng) => ({ name: 'fuzz key', scopes: rng.pick([['all'], ['statements/read'], ['state', 'define']]), expiresAt: rng.pick([null, '2030-01-01T00:00:00Z']) }),
  },
  {
    name: 'admin key',
    kind: 'admin',
    methods: ['GET', 'DELETE', 'PATCH'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.slug, ctx.victimSlug])}/keys/${rng.pick([ctx.victimKeyId, ctx.decoyKeyId, 'lore_test_nope', '%ff%fe', 'k'.repeat(250)])}`,
    query: () => [],
    body: null,
  },
  {
    name: 'admin key rotate',
    kind: 'admin',
    methods: ['POST'],
    path: (ctx, rng) => `/admin/api/stores/${ctx.victimSlug}/keys/${rng.pick([ctx.victimKeyId, 'lore_test_nope'])}/rotate`,
    query: () => [],
    body: (_ctx, rng) => ({ oldKeyExpiresAt: rng.pick(['2030-01-01T00:00:00Z', '2001-01-01T00:00:00Z', 'soon']), name: 'rotated' }),
  },
  {
    name: 'admin explorer',
    kind: 'admin',
    methods: ['GET'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.slug, ctx.otherSlug, 'nope'])}/statements`,
    query: (_ctx, rng) =>
      rng.pick<Array<[string, string]>>([
        [],
        [['agent', 'hostile@example.com'], ['limit', '10']],
        [['status', 'rejected'], ['since', '2026-01-01T00:00:00Z']],
        [['verb', 'http://adlnet.gov/expapi/verbs/answered'], ['activity', ACTIVITY], ['cursor', 'abc']],
        [['agent', 'Ada Lovel'], ['verb', 'answered'], ['activity', 'module 4']],
      ]),
    body: null,
  },
  {
    name: 'admin explorer suggestions',
    kind: 'admin',
    methods: ['GET'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.slug, ctx.otherSlug, 'nope'])}/suggestions`,
    query: (_ctx, rng) =>
      rng.pick<Array<[string, string]>>([
        [],
        [['field', 'agent'], ['prefix', 'hostile']],
        [['field', 'verb'], ['prefix', 'http://adlnet.gov/expapi/verbs/a'], ['limit', '50']],
        [['field', 'activity'], ['prefix', 'module 4']],
      ]),
    body: null,
  },
  {
    name: 'admin export',
    kind: 'admin',
    methods: ['GET'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.slug, ctx.otherSlug, 'nope'])}/export`,
    query: (_ctx, rng) =>
      rng.pick<Array<[string, string]>>([
        [],
        [['format', 'csv']],
        [['format', 'ndjson'], ['status', 'rejected']],
        [['format', 'csv'], ['agent', 'Ada Lovel'], ['since', 'yesterday']],
        [['format', 'ndjson'], ['verb', 'http://adlnet.gov/expapi/verbs/answered'], ['limit', '5'], ['cursor', '1']],
      ]),
    body: null,
  },
  {
    name: 'admin audit log',
    kind: 'admin',
    methods: ['GET'],
    path: () => '/admin/api/audit',
    query: (ctx, rng) =>
      rng.pick<Array<[string, string]>>([[], [['store', ctx.slug]], [['action', 'store.create'], ['limit', '500']], [['since', 'soon']], [['cursor', '-1']], [['action', "'; DROP TABLE audit_log; --"]]]),
    body: null,
  },
  {
    name: 'admin store actions',
    kind: 'admin',
    methods: ['POST'],
    path: (ctx, rng) => `/admin/api/stores/${rng.pick([ctx.victimSlug, 'nope'])}/${rng.pick(['empty', 'test-statement'])}`,
    query: () => [],
    body: (ctx) => ({ confirm: ctx.victimSlug }),
  },
  {
    name: 'admin metrics',
    kind: 'admin',
    methods: ['GET'],
    path: () => '/admin/api/metrics/ingestion',
    query: (ctx, rng) =>
      rng.pick<Array<[string, string]>>([[], [['store', ctx.slug]], [['bucket', 'minute']], [['bucket', 'day'], ['since', '2026-01-01T00:00:00Z'], ['until', '2026-12-01T00:00:00Z']]]),
    body: null,
  },
  {
    name: 'admin events',
    kind: 'admin',
    methods: ['GET'],
    path: () => '/admin/api/events',
    query: (ctx, rng) => (rng.chance(0.5) ? [['store', ctx.slug]] : []),
    body: null,
  },
  {
    name: 'admin status, openapi, backups',
    kind: 'admin',
    methods: ['GET', 'POST', 'DELETE'],
    path: (_ctx, rng) => `/admin/api/${rng.pick(['status', 'openapi.json', 'backups', 'backups/latest', 'nothing-here'])}`,
    query: () => [],
    body: () => ({}),
  },
  {
    name: 'web console',
    kind: 'public',
    methods: ['GET', 'HEAD', 'POST'],
    path: (_ctx, rng) =>
      rng.pick(['/admin', '/admin/', '/admin/index.html', '/admin/assets/nope.js', '/admin/../../etc/passwd', '/admin/%2e%2e/%2e%2e/etc/passwd', '/admin/..%5c..%5cwindows', '/admin/%00', '/admin/assets/%ff']),
    query: () => [],
    body: null,
  },
  {
    name: 'root',
    kind: 'public',
    methods: ['GET', 'POST', 'OPTIONS'],
    path: (_ctx, rng) => rng.pick(['/', '/health', '/favicon.ico', '/~alternate/xapi/statements', '//', '/%', '/a/b/c/d/e/f', '/xapi/../admin/api/status']),
    query: () => [],
    body: null,
  },
];

// --- value generators --------------------------------------------------------------------------

const WEIRD_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  '[]',
  '{}',
  '-1',
  '0',
  '1e309',
  'NaN',
  '9007199254740993',
  'true',
  '%zz',
  '%00',
  '%',
  '\u0000',
  '../../etc/passwd',
  '\ud800',
  '😀'.repeat(50),
  '{"mbox":1}',
  '{"objectType":"Group","member":[{"objectType":"Group"}]}',
  'mailto:',
  'http://',
  'urn:',
  'not a uuid',
  '2026-13-45T99:99:99Z',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
];

function weirdValue(rng: Rng): unknown {
  switch (rng.int(0, 12)) {
    case 0:
      return null;
    case 1:
      return rng.pick([0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2]);
    case 2:
      return rng.chance(0.5);
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return rng.pick(WEIRD_STRINGS);
    case 6:
      return 'x'.repeat(rng.int(1000, 70_000));
    case 7:
      return Array.from({ length: rng.int(10, 2000) }, () => rng.pick([1, 'a', null, {}]));
    case 8:
      return nested(rng.int(20, 400), rng);
    case 9:
      return { __proto__: { polluted: true }, constructor: { prototype: { polluted: true } } };
    case 10:
      return Object.fromEntries(Array.from({ length: rng.int(10, 500) }, (_, i) => [`k${i}`, i]));
    default:
      return [weirdValue(rng)];
  }
}

function nested(depth: number, rng: Rng): unknown {
  let value: unknown = rng.pick(['leaf', 1, null]);
  for (let i = 0; i < depth; i++) value = rng.chance(0.5) ? [value] : { a: value };
  return value;
}

/** Replaces one value somewhere inside `value` (objects and arrays) with a weird one. */
function retype(value: unknown, rng: Rng, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > 6 || rng.chance(0.2)) return weirdValue(rng);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return weirdValue(rng);
  const key = rng.pick(keys);
  if (rng.chance(0.1)) {
    delete (copy as Record<string, unknown>)[key];
    return copy;
  }
  (copy as Record<string, unknown>)[key] = retype((copy as Record<string, unknown>)[key], rng, depth + 1);
  return copy;
}

function deepText(depth: number, rng: Rng): string {
  const open = rng.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  return open.repeat(depth) + '1' + (rng.chance(0.8) ? close.repeat(depth) : '');
}

const INVALID_UTF8 = [Buffer.from([0xff]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80])];

function bodyFor(endpoint: Endpoint, ctx: HostileContext, rng: Rng): { body: Buffer | null; label: string; form: boolean } {
  const sample = endpoint.body?.(ctx, rng);
  const form = typeof sample === 'object' && sample !== null && 'form' in sample;
  const text = form ? (sample as { form: string }).form : sample === undefined ? '{}' : JSON.stringify(sample);
  const roll = rng.int(0, 15);
  switch (roll) {
    case 0:
      return { body: Buffer.from(text), label: 'valid body', form };
    case 1:
      return { body: Buffer.from(text.slice(0, rng.int(0, Math.max(0, text.length - 1)))), label: 'truncated body', form };
    case 2:
      return { body: rng.bytes(rng.int(1, 4096)), label: 'random bytes', form };
    case 3: {
      const at = rng.int(0, text.length);
      const bytes = Buffer.from(text);
      const cut = Buffer.byteLength(text.slice(0, at));
      return { body: Buffer.concat([bytes.subarray(0, cut), rng.pick(INVALID_UTF8), bytes.subarray(cut)]), label: 'invalid UTF-8', form };
    }
    case 4:
    case 5:
    case 6:
      return { body: Buffer.from(JSON.stringify(retype(form ? {} : sample, rng)) ?? 'null'), label: 'wrong types', form: false };
    case 7:
      return { body: Buffer.from(deepText(rng.pick([100, 1000, 10_000, 100_000]), rng)), label: 'deeply nested', form: false };
    case 8:
      return {
        body: Buffer.from(JSON.stringify({ ...(typeof sample === 'object' && !form ? sample : {}), huge: 'x'.repeat(rng.pick([100_000, 1_000_000, 3_000_000])) })),
        label: 'huge value',
        form: false,
      };
    case 9:
      return { body: Buffer.from(`[${Array.from({ length: rng.pick([1000, 20_000]) }, () => text).join(',')}]`), label: 'huge array', form: false };
    case 10:
      return { body: Buffer.alloc(0), label: 'empty body', form };
    case 11:
      return { body: Buffer.from(rng.pick(['null', '0', '"string"', 'true', '[]', '{}', '1e999', '-', '\ufeff{}', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '[,]', '{"a":}'])), label: 'odd JSON', form: false };
    case 12:
    case 13:
      return { body: brokenMultipart(text, rng), label: 'broken multipart', form: false };
    default:
      return { body: Buffer.from(text), label: 'valid body', form };
  }
}

const BOUNDARY = 'hostile-boundary';

function brokenMultipart(json: string, rng: Rng): Buffer {
  const part = (headers: string, body: string | Buffer) => Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), Buffer.from(body)]);
  const pieces: Buffer[] = [];
  switch (rng.int(0, 6)) {
    case 0: // no closing delimiter
      pieces.push(part('Content-Type: application/json', json), Buffer.from('\r\n'));
      break;
    case 1: // an attachment part without hash header
      pieces.push(part('Content-Type: application/json', json), Buffer.from('\r\n'), part('Content-Type: text/plain', 'hello'), Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
      break;
    case 2: // garbage part headers
      pieces.push(Buffer.from(`--${BOUNDARY}\r\n`), rng.bytes(200), Buffer.from(`\r\n\r\n${json}\r\n--${BOUNDARY}--\r\n`));
      break;
    case 3: // thousands of empty parts
      for (let i = 0; i < rng.int(100, 5000); i++) pieces.push(Buffer.from(`--${BOUNDARY}\r\n\r\n\r\n`));
      pieces.push(Buffer.from(`--${BOUNDARY}--`));
      break;
    case 4: // a wrong hash for a real attachment
      pieces.push(
        part('Content-Type: application/json', json),
        Buffer.from('\r\n'),
        part('Content-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ' + 'f'.repeat(64), 'hello'),
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      );
      break;
    case 5: // no parts at all
      pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
      break;
    default: // random bytes between delimiters
      pieces.push(part('Content-Type: application/json', rng.bytes(rng.int(1, 2000))), Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  }
  return Buffer.concat(pieces);
}

function mutateQuery(query: Array<[string, string]>, rng: Rng): Array<[string, string]> {
  const out = [...query];
  const roll = rng.int(0, 9);
  if (roll < 3 || out.length === 0) {
    if (out.length > 0) {
      const i = rng.int(0, out.length - 1);
      out[i] = [out[i]![0], String(rng.pick<unknown>([...WEIRD_STRINGS, JSON.stringify(nested(rng.int(5, 300), rng)), 'y'.repeat(rng.int(100, 6000))]))];
    } else out.push([rng.pick(['limit', 'statementId', 'agent', 'foo', 'method']), rng.pick(WEIRD_STRINGS)]);
  } else if (roll === 3 && out.length > 0) out.splice(rng.int(0, out.length - 1), 1);
  else if (roll === 4 && out.length > 0) out.push(out[rng.int(0, out.length - 1)]!);
  else if (roll === 5) out.push([rng.pick(['Limit', 'AGENT', 'unknown', '', '__proto__', 'constructor', 'a[b]', 'since']), rng.pick(WEIRD_STRINGS)]);
  else if (roll === 6) out.push(...Array.from({ length: rng.int(50, 400) }, (_, i): [string, string] => [`p${i}`, 'v']));
  else if (roll === 7) out.push(['limit', rng.pick(['-5', '0', '1e9', '99999999999999999999', '1.5', 'ten', '0x10'])]);
  return out;
}

function encodeQuery(query: Array<[string, string]>, rng: Rng): string {
  if (query.length === 0) return '';
  // Sometimes raw (unencoded, broken percent-escapes pass through as typed).
  if (rng.chance(0.15)) return '?' + query.map(([k, v]) => `${k}=${v.replace(/[\s#]/g, '%20').replace(/[^\x21-\x7e]/g, '%ff')}`).join('&');
  return '?' + query.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join('&');
}

const LONE_SURROGATE = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/;

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes instead of throwing. */
function encodeLoose(text: string): string {
  return text
    .split(LONE_SURROGATE)
    .map((part) => (LONE_SURROGATE.test(part) && part.length === 1 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/octet-stream',
  `multipart/mixed; boundary=${BOUNDARY}`,
  'multipart/mixed',
  'multipart/mixed; boundary=',
  'multipart/mixed; boundary="unterminated',
  `multipart/mixed; boundary=${'b'.repeat(200)}`,
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  ';;;',
  '*/*',
  'application/json, text/plain',
  'Application/JSON',
  'application/',
];

function mutateHeaders(headers: Array<[string, string]>, ctx: HostileContext, rng: Rng, kind: Endpoint['kind']): { headers: Array<[string, string]>; raw: boolean; label: string } {
  const set = (name: string, value: string) => {
    const i = headers.findIndex(([n]) => n === name);
    if (i >= 0) headers[i] = [name, value];
    else headers.push([name, value]);
  };
  const remove = (name: string) => headers.splice(0, headers.length, ...headers.filter(([n]) => n !== name));
  switch (rng.int(0, 18)) {
    case 0:
      remove('authorization');
      return { headers, raw: false, label: 'no credentials' };
    case 1:
      // Wrong admin tokens are left out: after ten the service (rightly) blocks the admin API for
      // this address, and every later admin request would only meet that block.
      if (kind === 'admin') return { headers, raw: false, label: 'usual headers' };
      set(
        'authorization',
        rng.pick([
          'Basic !!!',
          'Basic ',
          `Basic ${Buffer.from('no-colon').toString('base64')}`,
          `Basic ${Buffer.from(`${ctx.decoyKeyId}:wrong`).toString('base64')}`,
          'Bearer ',
          `Bearer ${'t'.repeat(rng.int(100, 8000))}`,
          `Bearer ${ctx.decoyKeyId}.`,
          `Basic ${ctx.otherBasic}`,
          `Basic ${Buffer.from([0xff, 0x3a, 0xfe]).toString('base64')}`,
          'Digest username="x"',
          'Basic\tabc',
          `bearer ${ctx.decoyKeyId}.x`,
        ]),
      );
      return { headers, raw: false, label: 'bad credentials' };
    case 2:
      set('x-experience-api-version', rng.pick(['0.9', '1.0', '1.0.9', '2.0.0', '3.0', '', '1.0.3, 2.0.0', 'v'.repeat(3000), '1.0.3\t']));
      return { headers, raw: false, label: 'odd version' };
    case 3:
      remove('x-experience-api-version');
      return { headers, raw: false, label: 'no version' };
    case 4:
    case 5:
      set('content-type', rng.pick(CONTENT_TYPES));
      return { headers, raw: false, label: 'odd content type' };
    case 6:
      remove('content-type');
      return { headers, raw: false, label: 'no content type' };
    case 7: {
      const name = rng.pick(['content-type', 'authorization', 'x-experience-api-version', 'if-match', 'host', 'content-length']);
      const value = name === 'content-length' ? '3' : (headers.find(([n]) => n === name)?.[1] ?? 'x');
      headers.push([name, name === 'content-type' ? rng.pick(CONTENT_TYPES) : value]);
      return { headers, raw: true, label: `duplicate ${name}` };
    }
    case 8:
      headers.push([rng.pick(['x-giant', 'if-match', 'accept-language', 'authorization', 'cookie']), 'g'.repeat(rng.pick([9000, 17_000, 70_000]))]);
      return { headers, raw: false, label: 'giant header' };
    case 9:
      set(rng.pick(['if-match', 'if-none-match']), rng.pick(['*', '"abc"', 'W/"x"', '""', '"a", "b", "c"', 'garbage', '"' + 'e'.repeat(5000) + '"']));
      return { headers, raw: false, label: 'odd precondition' };
    case 10:
      set('accept-language', rng.pick(['*', ',,,,', 'en-US;q=abc', 'x'.repeat(4000), Array.from({ length: 500 }, () => 'en').join(',')]));
      return { headers, raw: false, label: 'odd accept-language' };
    case 11:
      set(rng.pick(['host', 'origin']), rng.pick(['evil.example', '', 'localhost:1', '[::1]', 'http://evil.example', 'null', '127.0.0.1:99999']));
      return { headers, raw: rng.chance(0.5), label: 'odd host or origin' };
    case 12:
      for (let i = 0; i < rng.int(100, 1500); i++) headers.push([`x-h${i}`, 'v']);
      return { headers, raw: false, label: 'many headers' };
    case 13:
      headers.push(['x-bytes', rng.pick(['\u00ff\u00fe', 'a\u0001b', '\u007f'])]);
      return { headers, raw: true, label: 'control bytes in a header' };
    case 14:
      set('content-encoding', rng.pick(['gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x-unknown']));
      return { headers, raw: false, label: 'content-encoding' };
    case 15:
      set('expect', rng.pick(['100-continue', '200-ok', '']));
      return { headers, raw: rng.chance(0.5), label: 'expect' };
    default:
      return { headers, raw: false, label: 'usual headers' };
  }
}

const WEIRD_METHODS = ['PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW', 'M-SEARCH', 'SEARCH', 'LOCK', 'PURGE', 'CONNECT'];
const RAW_METHODS = ['get', 'G ET', 'GET\t', 'POST/', 'X'.repeat(300), 'ÜBER'];

export function generateRequest(seed: number, index: number, ctx: HostileContext): HostileRequest {
  const rng = createRng((Math.imul(seed ^ 0x9e3779b9, 2654435761) + Math.imul(index + 1, 40503)) >>> 0);
  const endpoint = rng.pick(ENDPOINTS);
  let method = rng.pick(endpoint.methods);
  let raw = false;
  const labels = [endpoint.name];
  if (rng.chance(0.08)) {
    method = rng.pick(WEIRD_METHODS);
    labels.push(`method ${method}`);
  } else if (rng.chance(0.02)) {
    method = rng.pick(RAW_METHODS);
    raw = true;
    labels.push('malformed method');
  }
  let query = endpoint.query(ctx, rng);
  if (rng.chance(0.5)) {
    query = mutateQuery(query, rng);
    labels.push('odd query');
  }
  const path = endpoint.path(ctx, rng) + encodeQuery(query, rng);

  let headers: Array<[string, string]> = [];
  if (endpoint.kind === 'xapi') {
    headers.push(['authorization', rng.chance(0.5) ? `Basic ${ctx.basic}` : `Bearer ${ctx.bearer}`]);
    headers.push(['x-experience-api-version', rng.pick(['1.0.3', '2.0.0', '1.0.0'])]);
  } else if (endpoint.kind === 'admin') {
    headers.push(['authorization', `Bearer ${ctx.adminToken}`]);
  }
  let body: Buffer | null = null;
  const sendsBody = ['POST', 'PUT', 'PATCH'].includes(method) || rng.chance(0.05);
  if (sendsBody) {
    const made = bodyFor(endpoint, ctx, rng);
    body = made.body;
    labels.push(made.label);
    const type = made.form
      ? 'application/x-www-form-urlencoded'
      : made.label === 'broken multipart'
        ? `multipart/mixed; boundary=${BOUNDARY}`
        : endpoint.name === 'state' || endpoint.name.endsWith('Profile')
          ? rng.pick(['application/json', 'application/octet-stream', 'text/plain'])
          : 'application/json';
    headers.push(['content-type', type]);
  }
  if (rng.chance(0.5)) {
    const mutated = mutateHeaders(headers, ctx, rng, endpoint.kind);
    headers = mutated.headers;
    raw ||= mutated.raw;
    labels.push(mutated.label);
  }
  // Now and then the framing itself is wrong; only a bare socket can send that.
  if (body !== null && rng.chance(0.02)) {
    raw = true;
    const chunks = body.length === 0 ? '' : `${rng.pick([body.length.toString(16), 'zz', 'ffffffff', '-1', `${body.length.toString(16)};ext=1`])}\r\n`;
    body = Buffer.concat([Buffer.from(chunks), body, Buffer.from(rng.pick(['\r\n0\r\n\r\n', '\r\n', '0\r\n\r\n', '']))]);
    headers.push(['transfer-encoding', rng.pick(['chunked', 'chunked, gzip', 'gzip, chunked', 'identity'])]);
    if (rng.chance(0.3)) headers.push(['content-length', String(body.length)]);
    labels.push('broken chunked framing');
  } else if (body !== null && rng.chance(0.03)) {
    raw = true;
    headers.push(['content-length', String(rng.pick([0, body.length + rng.int(1, 100), Math.max(0, body.length - rng.int(1, 10))]))]);
    labels.push('wrong content-length');
  }
  return { index, label: labels.join(', '), method, path, headers, body, raw };
}
