/**
 * One canonical string per Agent or identified Group: the value index terms and the `agent`
 * filter compare. xAPI 1.0.3 Part Three §2.1.3 (agent parameter): "Agents or Identified Groups are
 * equal when the same Inverse Functional Identifier is used in each Object compared and those
 * Inverse Functional Identifiers have equal values."
 *
 *   mbox:mailto:ada@example.com        mbox, scheme and domain lower-cased (1.0.3 §2.4.2.3.s4.b1:
 *                                      "The domain portions of email addresses are case insensitive")
 *   mbox_sha1sum:<40 hex, lower-case>  a hex digest has no case
 *   openid:<IRI as sent>
 *   account:<homePage>|<name>          "|" cannot occur in a valid homePage IRI, so the split is unambiguous
 */

import { commonAgent } from './common-statement';
import { issueFromZod } from './issue-from-zod';
import type { XapiIssue } from './issue';
import { statementSchemas } from './statement-schema';
import type { Agent, Group } from './statement-schema';

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `mailto:Ada@Example.COM` → `mailto:Ada@example.com`: only the scheme and domain lose their case. */
/**
 * The agent key of an email address as a person writes it (`ada@example.com`, `mailto:Ada@Example.com `),
 * or null when the text is no email address: what the Explorer's search computes from what is
 * typed, and what a rejected statement's `mbox` without `mailto:` is filed under, so both meet.
 */
export function emailAgentKey(text: string): string | null {
  const email = text.trim().replace(/^mailto:/i, '');
  return /^[^@\s]+@[^@\s]+$/.test(email) ? `mbox:${normaliseMbox(`mailto:${email}`)}` : null;
}

export function normaliseMbox(mbox: string): string {
  const match = /^mailto:(.*)@([^@]*)$/isu.exec(mbox);
  return match ? `mailto:${match[1] ?? ''}@${(match[2] ?? '').toLowerCase()}` : mbox;
}

/**
 * The key of an Agent or identified Group; null for an anonymous Group (it has no identity of its
 * own, 1.0.3 §2.4.2.2) or anything without an IFI. Never throws, even on malformed input, so the
 * rejected-statement log can use it on payloads that failed validation.
 */
export function agentKey(agentOrGroup: Agent | Group): string | null {
  const value: unknown = agentOrGroup;
  if (typeof value !== 'object' || value === null) return null;
  const { mbox, mbox_sha1sum: sha1, openid, account } = value as Record<string, unknown>;
  const mboxText = str(mbox);
  if (mboxText !== undefined) return `mbox:${normaliseMbox(mboxText)}`;
  const sha1Text = str(sha1);
  if (sha1Text !== undefined) return `mbox_sha1sum:${sha1Text.toLowerCase()}`;
  const openidText = str(openid);
  if (openidText !== undefined) return `openid:${openidText}`;
  if (typeof account === 'object' && account !== null) {
    const homePage = str((account as Record<string, unknown>).homePage);
    const name = str((account as Record<string, unknown>).name);
    if (homePage !== undefined && name !== undefined) return `account:${homePage}|${name}`;
  }
  return null;
}

export type AgentParamResult = { ok: true; key: string } | { ok: false; issue: XapiIssue };

const AGENT_EXAMPLE = '{"mbox": "mailto:ada@example.com"}';

/**
 * The GET statements `agent` parameter: JSON of an Agent or identified Group (1.0.3 Part Three
 * §2.1.3), validated like the same object in a statement (Part Two §2.2.s4.b4). Issues name the
 * field `agent`.
 */
export function parseAgentParam(json: string): AgentParamResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {
      ok: false,
      issue: { field: 'agent', message: `agent must be the JSON of an Agent or identified Group, such as ${AGENT_EXAMPLE}; it is not valid JSON` },
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      issue: { field: 'agent', message: `agent must be the JSON of an Agent or identified Group, such as ${AGENT_EXAMPLE}` },
    };
  }
  // The common case, an Agent with one identifier, by the hand-written checks of the same rules
  // (common-statement.ts); anything else, every invalid value included, by the schema, which
  // words the error.
  const common = commonAgent(parsed);
  if (common !== null) {
    const key = agentKey(common as Agent);
    if (key !== null) return { ok: true, key };
  }
  try {
    // Agent and Group rules are the same in 1.0.3 and 2.0.0.
    const result = statementSchemas['2.0.0'].actor.safeParse(parsed);
    if (!result.success) {
      const prefixed = result.error.issues.map((issue) => ({ ...issue, path: ['agent', ...issue.path] }));
      const inner = issueFromZod(prefixed, { agent: parsed });
      return { ok: false, issue: { field: 'agent', message: inner.message } };
    }
    const key = agentKey(result.data);
    if (key === null) {
      return {
        ok: false,
        issue: { field: 'agent', message: 'agent must identify one Agent or Group: an anonymous Group (no mbox, mbox_sha1sum, openid or account) cannot be used as a filter' },
      };
    }
    return { ok: true, key };
  } catch {
    return { ok: false, issue: { field: 'agent', message: 'agent could not be read as plain JSON' } };
  }
}

/**
 * The inverse function identifier a key stands for, as the JSON of an Agent (`{"mbox": ...}`):
 * what a filter is given back when a learner is picked by name. Null for text that is no key.
 */
export function agentOfKey(key: string): Record<string, unknown> | null {
  const colon = key.indexOf(':');
  if (colon < 0) return null;
  const kind = key.slice(0, colon);
  const rest = key.slice(colon + 1);
  switch (kind) {
    case 'mbox':
    case 'mbox_sha1sum':
    case 'openid':
      return { [kind]: rest };
    case 'account': {
      const bar = rest.indexOf('|');
      return bar < 0 ? null : { account: { homePage: rest.slice(0, bar), name: rest.slice(bar + 1) } };
    }
    default:
      return null;
  }
}
