import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  contentForWrite,
  decideWrite,
  documentEtag,
  mergeDocuments,
  parseEntityTagHeader,
  parsePreconditions,
  preconditionsHold,
  quoteEtag,
} from '../../src-server/xapi/documents';

const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('ETag', () => {
  // 1.0.3 Communication §3.1.s4.b2: SHA-1 of the content, hexadecimal, lower case; §3.1.s4.b4: quoted.
  it('is the lower-case hex SHA-1 of the content, and is quoted in headers', () => {
    const content = encode('{"page":3}');
    expect(documentEtag(content)).toBe(createHash('sha1').update('{"page":3}').digest('hex'));
    expect(documentEtag(content)).toMatch(/^[0-9a-f]{40}$/);
    expect(quoteEtag('abc')).toBe('"abc"');
  });
});

describe('If-Match / If-None-Match headers', () => {
  it('reads *, one tag, a list, weak tags and unquoted tags', () => {
    expect(parseEntityTagHeader('*')).toEqual({ any: true });
    expect(parseEntityTagHeader('"abc"')).toEqual({ any: false, tags: ['abc'] });
    expect(parseEntityTagHeader('"a", W/"b" ,c')).toEqual({ any: false, tags: ['a', 'b', 'c'] });
    expect(parseEntityTagHeader(undefined)).toBeUndefined();
    expect(parseEntityTagHeader('  ')).toBeUndefined();
  });

  // RFC 7232 §3.1 and §3.2.
  it('holds If-Match only when a document exists with a listed tag (or any, for *)', () => {
    const p = parsePreconditions({ ifMatch: '"a", "b"' });
    expect(preconditionsHold(p, 'b')).toBe(true);
    expect(preconditionsHold(p, 'c')).toBe(false);
    expect(preconditionsHold(p, null)).toBe(false);
    expect(preconditionsHold(parsePreconditions({ ifMatch: '*' }), 'x')).toBe(true);
    expect(preconditionsHold(parsePreconditions({ ifMatch: '*' }), null)).toBe(false);
  });

  it('holds If-None-Match: * only when no document exists, and a tag list unless one matches', () => {
    expect(preconditionsHold(parsePreconditions({ ifNoneMatch: '*' }), null)).toBe(true);
    expect(preconditionsHold(parsePreconditions({ ifNoneMatch: '*' }), 'x')).toBe(false);
    expect(preconditionsHold(parsePreconditions({ ifNoneMatch: '"x"' }), 'x')).toBe(false);
    expect(preconditionsHold(parsePreconditions({ ifNoneMatch: '"x"' }), 'y')).toBe(true);
  });
});

describe('decideWrite', () => {
  const none = {};
  const base = { method: 'PUT' as const, version: '1.0.3' as const, preconditions: none };

  it('answers 412 when If-Match does not match the current ETag, for every resource and method', () => {
    for (const resource of ['state', 'activityProfile', 'agentProfile'] as const) {
      for (const method of ['PUT', 'POST', 'DELETE'] as const) {
        const decision = decideWrite({ ...base, resource, method, preconditions: parsePreconditions({ ifMatch: '"old"' }), current: 'new' });
        expect(decision).toMatchObject({ ok: false, failure: { status: 412, code: 'precondition_failed' } });
      }
    }
  });

  it('answers 412 when If-Match names a document that does not exist, and when If-None-Match: * meets one', () => {
    expect(decideWrite({ ...base, resource: 'agentProfile', preconditions: parsePreconditions({ ifMatch: '"a"' }), current: null })).toMatchObject({
      failure: { status: 412 },
    });
    expect(decideWrite({ ...base, resource: 'agentProfile', preconditions: parsePreconditions({ ifNoneMatch: '*' }), current: 'a' })).toMatchObject({
      failure: { status: 412 },
    });
  });

  // 1.0.3 §3.1.s4.b13 and 2.0.0 §4.1.4: PUT with neither header onto an existing document.
  it('answers 409 to a PUT without either header onto an existing profile document, in both versions', () => {
    for (const version of ['1.0.3', '2.0.0'] as const) {
      for (const resource of ['activityProfile', 'agentProfile'] as const) {
        expect(decideWrite({ ...base, version, resource, current: 'x' })).toMatchObject({ failure: { status: 409, code: 'document_conflict' } });
      }
    }
  });

  it('lets 1.0.3 overwrite a State document without headers, but answers 409 under 2.0.0', () => {
    // 1.0.3 §3.1.s3: "The State Resource will permit PUT, POST and DELETE requests without concurrency headers".
    expect(decideWrite({ ...base, resource: 'state', current: 'x' })).toEqual({ ok: true });
    // 2.0.0 §4.1.4 lists the State Resource among those with concurrency control.
    expect(decideWrite({ ...base, version: '2.0.0', resource: 'state', current: 'x' })).toMatchObject({ failure: { status: 409 } });
  });

  it('answers 400 to a 1.0.3 PUT of a new profile document without either header, and accepts it under 2.0.0', () => {
    // 1.0.3 §3.1.s3.b1: the Client MUST include If-Match or If-None-Match; 2.0.0 dropped the rule.
    expect(decideWrite({ ...base, resource: 'activityProfile', current: null })).toMatchObject({
      failure: { status: 400, code: 'precondition_required' },
    });
    expect(decideWrite({ ...base, version: '2.0.0', resource: 'activityProfile', current: null })).toEqual({ ok: true });
    expect(decideWrite({ ...base, resource: 'state', current: null })).toEqual({ ok: true });
  });

  it('lets POST and DELETE go ahead without headers', () => {
    expect(decideWrite({ ...base, method: 'POST', resource: 'agentProfile', current: 'x' })).toEqual({ ok: true });
    expect(decideWrite({ ...base, method: 'DELETE', resource: 'agentProfile', current: 'x' })).toEqual({ ok: true });
  });
});

describe('document merge (1.0.3 Communication §2.2.s7; 2.0.0 §4.1.6.2 POST)', () => {
  const cases = JSON.parse(readFileSync(new URL('../fixtures/documents/merge-cases.json', import.meta.url), 'utf8')) as Array<{
    name: string;
    existing: Record<string, unknown>;
    posted: Record<string, unknown>;
    merged: Record<string, unknown>;
  }>;
  for (const c of cases) {
    it(`merges one level deep: ${c.name}`, () => {
      expect(mergeDocuments(c.existing, c.posted)).toEqual(c.merged);
      const written = contentForWrite({
        method: 'POST',
        body: encode(JSON.stringify(c.posted)),
        contentType: 'application/json',
        existing: { content: encode(JSON.stringify(c.existing)), contentType: 'application/json; charset=utf-8' },
      });
      expect(written.ok && JSON.parse(decode(written.content))).toEqual(c.merged);
      expect(written.ok && written.contentType).toBe('application/json');
    });
  }

  it('keeps a posted "__proto__" key as a plain property', () => {
    const merged = mergeDocuments({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(JSON.stringify(merged)).toBe('{"a":1,"__proto__":{"polluted":true}}');
  });
});

describe('contentForWrite', () => {
  const json = { content: encode('{"a":1}'), contentType: 'application/json' };

  it('stores a PUT body byte for byte with its content type, whatever the type', () => {
    const body = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00]);
    expect(contentForWrite({ method: 'PUT', body, contentType: 'image/png', existing: json })).toEqual({ ok: true, content: body, contentType: 'image/png' });
  });

  it('stores a body without Content-Type as application/octet-stream', () => {
    expect(contentForWrite({ method: 'PUT', body: encode('x'), contentType: undefined, existing: null })).toMatchObject({
      contentType: 'application/octet-stream',
    });
  });

  it('treats a POST where no document exists as a PUT (1.0.3 §2.2.s7)', () => {
    expect(contentForWrite({ method: 'POST', body: encode('plain'), contentType: 'text/plain', existing: null })).toMatchObject({
      ok: true,
      contentType: 'text/plain',
    });
  });

  it('rejects a body sent as application/json that is not JSON, on PUT and POST', () => {
    for (const method of ['PUT', 'POST'] as const) {
      expect(contentForWrite({ method, body: encode('{"a":1}{'), contentType: 'application/json', existing: null })).toMatchObject({
        ok: false,
        failure: { status: 400, code: 'invalid_document' },
      });
    }
  });

  // 1.0.3 §2.2.s8 / 2.0.0 §4.1.6.2: "If the document being posted or any existing document does not
  // have a Content-Type of application/json, or if either document cannot be parsed as a JSON Object" → 400.
  it('refuses to merge when either document is not a JSON object', () => {
    const refused = [
      { body: encode('abc'), contentType: 'text/plain', existing: json },
      { body: encode('[1]'), contentType: 'application/json', existing: json },
      { body: encode('{"b":2}'), contentType: 'application/json', existing: { content: encode('abc'), contentType: 'application/octet-stream' } },
      { body: encode('{"b":2}'), contentType: 'application/json', existing: { content: encode('[1]'), contentType: 'application/json' } },
    ];
    for (const r of refused) {
      expect(contentForWrite({ method: 'POST', ...r })).toMatchObject({ ok: false, failure: { status: 400 } });
    }
  });
});
