/**
 * Forgetting a learner (docs/erasure-and-retention.md): the agents given are checked by the xAPI
 * rules for an Agent or Identified Group and turned into their canonical keys, one per IFI (a person
 * may have several: give them all); the Store's storage removes everything that names them, or in a
 * dry run counts it. Plain functions over Storage, like stores.ts.
 */
import { parseAgentParam } from '../xapi/agent-key';
import type { ErasureOutcome } from '../storage/erasure';
import type { Storage, StoreRecord } from '../storage/storage';
import type { ErasureInput } from './contract';

export type ErasureKeys = { ok: true; keys: string[] } | { ok: false; field: string; message: string };

/**
 * The canonical keys of `agent` (one object or a list) and `agents` (a list), in that order,
 * each validated as the `agent` filter of GET /statements is; the first fault names its field
 * (`agent`, `agent[1]`, `agents[0]`).
 */
export function erasureKeysOf(input: Pick<ErasureInput, 'agent' | 'agents'>): ErasureKeys {
  const given: Array<{ field: string; agent: unknown }> = [];
  if (Array.isArray(input.agent)) input.agent.forEach((agent, i) => given.push({ field: `agent[${i}]`, agent }));
  else if (input.agent !== undefined) given.push({ field: 'agent', agent: input.agent });
  (input.agents ?? []).forEach((agent, i) => given.push({ field: `agents[${i}]`, agent }));
  if (given.length === 0) return { ok: false, field: 'agent', message: 'agent is required: the learner as an Agent, such as {"mbox": "mailto:ada@example.com"}, or a list of them' };
  const keys: string[] = [];
  for (const { field, agent } of given) {
    const parsed = parseAgentParam(JSON.stringify(agent));
    if (!parsed.ok) return { ok: false, field, message: parsed.issue.message.replace(/^agent\b/, field) };
    keys.push(parsed.key);
  }
  return { ok: true, keys: [...new Set(keys)] };
}

export async function eraseLearner(
  storage: Storage,
  store: StoreRecord,
  keys: string[],
  options: { dryRun: boolean; now?: Date },
): Promise<ErasureOutcome> {
  return storage.eraseAgents(store.id, { keys, dryRun: options.dryRun, at: (options.now ?? new Date()).toISOString() });
}
