/**
 * GET agents (xAPI 1.0.3 Part Three §2.4; 2.0.0 Part Four §4.1.6.3): the `agent` parameter and
 * the Person Object returned for it.
 *
 * §2.4.s2: "The 'agent' parameter is a normal Agent Object with a single identifier and no arrays.
 * It is not a Person Object, nor is it a Group." An invalid one is a 400 (XAPI-00249).
 *
 * §2.4.s3.b3: "If an LRS does not have any additional information about an Agent to return, the
 * LRS MUST still return a Person Object when queried, but that Person Object will only include
 * the information associated with the requested Agent." Lore keeps no directory of people and
 * does not link one person's identities (an mbox and an LMS account, say): it has no
 * trustworthy source for such a link, and §2.4.s3.b1 asks for extra permissions before an LRS
 * reveals several identifiers of one person. So the Person is the requested Agent's own
 * identifier and name, each as a one-item array (§2.4.s6.b1: members have the Agent
 * property's definition).
 */

import { issueFromZod } from './issue-from-zod';
import { describeValue } from './issue';
import type { XapiIssue } from './issue';
import { unknownParameterIssue } from './query-params';
import { statementSchemas } from './statement-schema';
import type { Account, Agent } from './statement-schema';

/** §2.4.s5 Person properties: every one but objectType is an array. */
export interface Person {
  objectType: 'Person';
  name?: string[];
  mbox?: string[];
  mbox_sha1sum?: string[];
  openid?: string[];
  account?: Account[];
}

export type AgentsQueryResult = { ok: true; agent: Agent } | { ok: false; issue: XapiIssue };

const AGENT_EXAMPLE = '{"objectType": "Agent", "mbox": "mailto:ada@example.com"}';

function fail(message: string): AgentsQueryResult {
  return { ok: false, issue: { field: 'agent', message } };
}

/** Parses the query of GET agents: exactly one parameter, `agent`, the JSON of an Agent. */
export function parseAgentsQuery(params: Record<string, string | undefined>): AgentsQueryResult {
  const unknown = unknownParameterIssue(params, ['agent'], 'GET agents');
  if (unknown) return { ok: false, issue: unknown };
  const json = params.agent;
  if (json === undefined) return fail(`agent is required: the JSON of an Agent, such as ${AGENT_EXAMPLE}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return fail(`agent must be the JSON of an Agent, such as ${AGENT_EXAMPLE}; got ${describeValue(json)}, which is not valid JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail(`agent must be the JSON of an Agent (an object), such as ${AGENT_EXAMPLE}`);
  }
  if ((parsed as Record<string, unknown>).objectType === 'Group') {
    return fail('agent must be an Agent, not a Group: GET agents describes one person (xAPI §2.4)');
  }
  try {
    // Agent rules are the same in 1.0.3 and 2.0.0.
    const result = statementSchemas['2.0.0'].agent.safeParse(parsed);
    if (!result.success) {
      const prefixed = result.error.issues.map((issue) => ({ ...issue, path: ['agent', ...issue.path] }));
      return fail(issueFromZod(prefixed, { agent: parsed }).message);
    }
    return { ok: true, agent: result.data };
  } catch {
    return fail('agent could not be read as plain JSON');
  }
}

/** The Person Object for an Agent: its identifier and name, each in a one-item array. */
export function personFor(agent: Agent): Person {
  const person: Person = { objectType: 'Person' };
  if (agent.name !== undefined) person.name = [agent.name];
  if (agent.mbox !== undefined) person.mbox = [agent.mbox];
  if (agent.mbox_sha1sum !== undefined) person.mbox_sha1sum = [agent.mbox_sha1sum];
  if (agent.openid !== undefined) person.openid = [agent.openid];
  if (agent.account !== undefined) person.account = [{ homePage: agent.account.homePage, name: agent.account.name }];
  return person;
}
