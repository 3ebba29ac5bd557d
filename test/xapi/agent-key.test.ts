import { describe, expect, it } from 'vitest';
import { agentKey, agentOfKey, parseAgentParam } from '../../src-server/xapi/agent-key';
import { commonAgent } from '../../src-server/xapi/common-statement';
import { statementSchemas } from '../../src-server/xapi/statement-schema';
import type { Agent, Group } from '../../src-server/xapi/statement-schema';

describe('agentKey', () => {
  it('writes each kind of identifier in its canonical form', () => {
    expect(agentKey({ mbox: 'mailto:ada@example.com' })).toBe('mbox:mailto:ada@example.com');
    expect(agentKey({ mbox_sha1sum: 'CD9B00A5611F94EAA7B1661EDAB976068E364975' })).toBe('mbox_sha1sum:cd9b00a5611f94eaa7b1661edab976068e364975');
    expect(agentKey({ openid: 'https://openid.example.com/Ada' })).toBe('openid:https://openid.example.com/Ada');
    expect(agentKey({ account: { homePage: 'https://lms.example.com', name: 'Ada|01' } })).toBe('account:https://lms.example.com|Ada|01');
  });

  it('lower-cases the mailto scheme and the domain of an mbox, not the local part', () => {
    expect(agentKey({ mbox: 'MAILTO:Ada.Lovelace@Example.COM' })).toBe('mbox:mailto:Ada.Lovelace@example.com');
  });

  it('keys an identified Group by its identifier and gives an anonymous Group no key', () => {
    const identified: Group = { objectType: 'Group', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:a@example.com' }] };
    const anonymous: Group = { objectType: 'Group', member: [{ mbox: 'mailto:a@example.com' }] };
    expect(agentKey(identified)).toBe('mbox:mailto:team@example.com');
    expect(agentKey(anonymous)).toBeNull();
  });

  it('answers null for malformed input instead of throwing', () => {
    for (const bad of [null, 42, 'mailto:a@b.c', { mbox: 5 }, { account: { homePage: 'https://e.com' } }, { account: null }]) {
      expect(agentKey(bad as unknown as Agent)).toBeNull();
    }
  });
});

describe('parseAgentParam', () => {
  it('returns the key of a valid Agent', () => {
    expect(parseAgentParam('{"objectType":"Agent","mbox":"mailto:ada@Example.com"}')).toEqual({ ok: true, key: 'mbox:mailto:ada@example.com' });
  });

  it('returns the key of an identified Group', () => {
    expect(parseAgentParam('{"objectType":"Group","account":{"homePage":"https://e.com","name":"class-7"}}')).toEqual({
      ok: true,
      key: 'account:https://e.com|class-7',
    });
  });

  it('refuses text that is not JSON, naming the agent parameter', () => {
    const result = parseAgentParam('wrong');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issue.field).toBe('agent');
      expect(result.issue.message).toContain('not valid JSON');
    }
  });

  it('refuses JSON that is not an object', () => {
    for (const text of ['[]', '"mailto:a@b.c"', 'null', '5']) expect(parseAgentParam(text).ok).toBe(false);
  });

  it('refuses an invalid Agent with the reason, under the field agent', () => {
    const result = parseAgentParam('{"mbox":"ada@example.com"}');
    expect(result).toEqual({
      ok: false,
      issue: { field: 'agent', message: 'agent.mbox must be "mailto:" followed by an email address, got "ada@example.com"' },
    });
  });

  it('refuses an anonymous Group, which cannot identify anyone', () => {
    const result = parseAgentParam('{"objectType":"Group","member":[{"mbox":"mailto:a@example.com"}]}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issue.message).toContain('anonymous Group');
  });
});

describe('agentOfKey', () => {
  it('gives back the identifier a key stands for, which keys to the same key again', () => {
    for (const agent of [
      { mbox: 'mailto:ada@example.com' },
      { mbox_sha1sum: 'cd9b00a5611f94eaa7b1661edab976068e364975' },
      { openid: 'https://openid.example.com/Ada' },
      { account: { homePage: 'https://lms.example.com', name: 'Ada|01' } },
    ]) {
      const key = agentKey(agent)!;
      expect(agentOfKey(key)).toEqual(agent);
      expect(agentKey(agentOfKey(key)!)).toBe(key);
    }
  });

  it('is null for text that is no key', () => {
    for (const text of ['ada@example.com', 'name:Ada', 'account:no-bar']) expect(agentOfKey(text)).toBeNull();
  });
});

describe('parseAgentParam: the common Agent without zod', () => {
  // What the schema alone answers: the reference the hand-written checks are held to.
  function bySchema(value: unknown): { ok: true; key: string | null } | { ok: false } {
    const result = statementSchemas['2.0.0'].actor.safeParse(value);
    return result.success ? { ok: true, key: agentKey(result.data) } : { ok: false };
  }

  const identifiers: Array<Record<string, unknown>> = [
    { mbox: 'mailto:ada@Example.com' },
    { mbox: 'MAILTO:ada@example.com' },
    { mbox: 'ada@example.com' },
    { mbox: 'mailto:' },
    { mbox: 5 },
    { mbox_sha1sum: 'CD9B00A5611F94EAA7B1661EDAB976068E364975' },
    { mbox_sha1sum: 'cd9b' },
    { openid: 'https://openid.example.com/Ada' },
    { openid: 'not an iri' },
    { account: { homePage: 'https://lms.example.com', name: 'ada|1' } },
    { account: { homePage: 'lms.example.com', name: 'ada' } },
    { account: { homePage: 'https://lms.example.com' } },
    { account: { homePage: 'https://lms.example.com', name: 'ada', extra: 1 } },
    { account: null },
    {},
  ];
  const extras: Array<Record<string, unknown>> = [
    {},
    { objectType: 'Agent' },
    { objectType: 'agent' },
    { objectType: 'Group' },
    { name: 'Ada' },
    { name: 7 },
    { name: 'Ada', objectType: 'Agent' },
    { member: [] },
    { unknown: true },
    { mbox: 'mailto:second@example.com' },
    { openid: 'https://openid.example.com/Second' },
  ];

  it('answers every variant as the schema does: the same key, or refused with the schema\'s words', () => {
    let fast = 0;
    for (const identifier of identifiers) {
      for (const extra of extras) {
        const value = { ...extra, ...identifier };
        const text = JSON.stringify(value);
        const reference = bySchema(value);
        const got = parseAgentParam(text);
        if (commonAgent(value) !== null) fast++;
        if (reference.ok && reference.key !== null) {
          expect(got, text).toEqual({ ok: true, key: reference.key });
        } else {
          expect(got.ok, text).toBe(false);
        }
      }
    }
    // The fast path is taken for the common shapes, not skipped altogether.
    expect(fast).toBeGreaterThanOrEqual(20);
  });

  it('gives back exactly the schema\'s output for what it accepts', () => {
    for (const identifier of identifiers) {
      for (const extra of extras) {
        const value = { ...extra, ...identifier };
        const common = commonAgent(value);
        if (common === null) continue;
        const result = statementSchemas['2.0.0'].actor.safeParse(value);
        expect(result.success, JSON.stringify(value)).toBe(true);
        if (result.success) expect(common).toEqual(result.data);
      }
    }
  });
});
