/**
 * The Statement Explorer's search: a Store's statements of every status, rejected ones included,
 * newest first, with cursor paging.
 */
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { emailAgentKey, parseAgentParam } from '../xapi/agent-key';
import { statementAsReceived } from '../xapi/received-statement';
import type { ExplorerPageView, ExplorerQueryInput } from './contract';

export type AgentSearch = { ok: true; key: string } | { ok: false; message: string };

/**
 * What a person types to find a learner: the xAPI agent JSON, or just `ada@example.com` /
 * `mailto:ada@example.com`.
 */
export function parseAgentSearch(text: string): AgentSearch {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = parseAgentParam(trimmed);
    return parsed.ok ? { ok: true, key: parsed.key } : { ok: false, message: parsed.issue.message };
  }
  const key = emailAgentKey(trimmed);
  if (key !== null) return { ok: true, key };
  return { ok: false, message: 'agent must be xAPI agent JSON or an email address (mailto: optional)' };
}

/** A record as the console shows it: the statement as sent (for a rejected one, its payload) beside the stored one. */
function explorerRecordView(record: ExplorerRecord): ExplorerPageView['records'][number] {
  const { payload, stored, received, lrsAdded, ...rest } = record;
  if (stored === undefined) return { ...rest, statement: payload };
  return { ...rest, statement: statementAsReceived(stored, received, lrsAdded), stored };
}

export async function searchStatements(
  storage: Storage,
  store: StoreRecord,
  input: ExplorerQueryInput,
  agentKeyValue: string | undefined,
): Promise<ExplorerPageView> {
  const query: ExplorerQuery = {
    status: input.status,
    agent: agentKeyValue,
    activityId: input.activity,
    verbId: input.verb,
    registration: input.registration,
    warned: input.warned,
    since: input.since === undefined ? undefined : new Date(input.since).toISOString(),
    until: input.until === undefined ? undefined : new Date(input.until).toISOString(),
    limit: input.limit,
    beforeSeq: input.cursor === undefined ? undefined : Number(input.cursor),
  };
  const page = await storage.searchExplorer(store.id, query);
  return {
    records: page.records.map(explorerRecordView),
    next: page.nextBeforeSeq === null ? null : String(page.nextBeforeSeq),
  };
}
