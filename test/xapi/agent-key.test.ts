import { describe, expect, it } from 'vitest';
import { agentKey, agentOfKey, parseAgentParam } from '../../src-server/xapi/agent-key';
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
