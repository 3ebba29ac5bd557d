/**
 * One readable line per statement for the Explorer: "Ada completed 'Module 1' — score 0.9".
 * Works on anything a client sent, rejected payloads included: what cannot be read is named
 * plainly rather than thrown over.
 */
import { preferredText } from '../../../src-server/xapi/language-map';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The last meaningful segment of an IRI: `http://adlnet.gov/expapi/verbs/completed` → `completed`. */
export function iriTail(iri: string): string {
  const trimmed = iri.replace(/[/#]+$/, '');
  const tail = trimmed.split(/[/#]/).pop();
  return tail && tail !== trimmed ? tail : iri;
}

/** An agent or group as a person reads it: its name, else its IFI without the scheme. */
export function agentName(agent: unknown): string {
  if (!isObject(agent)) return 'someone';
  if (typeof agent.name === 'string' && agent.name.trim() !== '') return agent.name.trim();
  if (typeof agent.mbox === 'string') return agent.mbox.replace(/^mailto:/i, '');
  if (isObject(agent.account) && typeof agent.account.name === 'string') return agent.account.name;
  if (typeof agent.openid === 'string') return agent.openid;
  if (typeof agent.mbox_sha1sum === 'string') return `agent ${agent.mbox_sha1sum.slice(0, 8)}…`;
  if (agent.objectType === 'Group') return 'a group';
  return 'someone';
}

function verbText(verb: unknown): string {
  if (!isObject(verb)) return 'did something with';
  const display = preferredText(verb.display);
  if (display) return display;
  return typeof verb.id === 'string' ? iriTail(verb.id) : 'did something with';
}

function objectText(object: unknown): string {
  if (!isObject(object)) return 'something';
  switch (object.objectType) {
    case 'Agent':
    case 'Group':
      return agentName(object);
    case 'StatementRef':
      return typeof object.id === 'string' ? `statement ${object.id.slice(0, 8)}` : 'a statement';
    case 'SubStatement':
      return `“${statementSentence(object)}”`;
    default: {
      const definition = isObject(object.definition) ? object.definition : undefined;
      const name = preferredText(definition?.name);
      if (name) return `'${name}'`;
      return typeof object.id === 'string' ? `'${object.id}'` : 'an activity';
    }
  }
}

function resultText(result: unknown): string | undefined {
  if (!isObject(result)) return undefined;
  const parts: string[] = [];
  const score = isObject(result.score) ? result.score : undefined;
  if (typeof score?.scaled === 'number') parts.push(`score ${score.scaled}`);
  else if (typeof score?.raw === 'number') parts.push(`score ${score.raw}${typeof score.max === 'number' ? `/${score.max}` : ''}`);
  if (result.success === true) parts.push('passed');
  if (result.success === false) parts.push('failed');
  if (typeof result.response === 'string' && parts.length === 0) parts.push(`response “${result.response.slice(0, 40)}”`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}

export function statementSentence(statement: unknown): string {
  if (!isObject(statement)) return Array.isArray(statement) ? 'A batch, not a statement' : 'Not a statement (not a JSON object)';
  const actor = agentName(statement.actor);
  // Only the fallback is capitalised: an email address or a name is shown as written.
  const sentence = `${actor === 'someone' ? 'Someone' : actor} ${verbText(statement.verb)} ${objectText(statement.object)}`;
  const result = resultText(statement.result);
  return result ? `${sentence} — ${result}` : sentence;
}
