/**
 * An attempt's export: a self-contained, printable HTML report a designer can keep, send or print
 * (`renderAttemptReport`), and the same data as JSON (`attemptJson`).
 *
 * Everything a statement, a document or a package carries is untrusted text: a course can name its
 * learner `<script>…` or its activity `" onmouseover=…`. The report therefore
 *   - escapes every value (`escapeHtml`: & < > " ') and puts none in an attribute: the only
 *     attributes are the template's own constants;
 *   - isolates each value with `<bdi>`, so right-to-left overrides in a name cannot reorder the
 *     sentence around it;
 *   - emits no link, no image, no script and no external resource, and says so in its CSP
 *     (`default-src 'none'; style-src 'unsafe-inline'`), so even a mistake here runs nothing and
 *     fetches nothing.
 *
 * The statement sentences follow the console's (src-renderer/features/explorer/statement-sentence.ts),
 * which src-server may not import, with the package's titles for the LMS's Activity ids.
 */
import { preferredText } from '../xapi/language-map';
import type { AttemptOutcome, Violation } from './attempt-rules';
import type { AttemptView } from './attempts';
import { completionText, percent, referenceVerdict, scoreText, successText } from './reference-outcome';
import type { ReferenceCriterion, ReferenceOutcome } from './reference-outcome';

export interface AttemptReportContext {
  courseTitle: string;
  storeName: string;
  generatedAt: Date;
  reference?: ReferenceOutcome | null;
}

/**
 * HTML text and attribute escaping: & < > " ' as entities; the control characters HTML forbids
 * (all but tab, line feed, form feed and carriage return) as U+FFFD.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']|\p{Cc}/gu, (char) => ESCAPES[char] ?? (ALLOWED_CONTROLS.has(char) ? char : '\uFFFD'));
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const ALLOWED_CONTROLS = new Set(['\t', '\n', '\f', '\r']);

/** The attempt and its context as pretty JSON: the report's data, for tools. */
export function attemptJson(view: AttemptView, context: AttemptReportContext): string {
  // The reference the report was made against, in its place among the report's facts.
  const { reference: _reference, ...rest } = view;
  return JSON.stringify(
    {
      report: 'lore-test-bench-attempt',
      version: 1,
      course: context.courseTitle,
      store: context.storeName,
      generatedAt: context.generatedAt.toISOString(),
      reference: context.reference ?? null,
      ...rest,
    },
    null,
    2,
  );
}

/** The report: one HTML5 document, inline CSS only. */
export function renderAttemptReport(view: AttemptView, context: AttemptReportContext): string {
  const numberOf = new Map(view.statements.map((row, index) => [row.id, index + 1]));
  const byLms = view.statements.filter((row) => row.byLms).length;
  const voided = view.statements.filter((row) => row.voided).length;
  const title = `Test Bench report: ${context.courseTitle}`;

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Test Bench report: <bdi>${escapeHtml(context.courseTitle)}</bdi></h1>
<dl class="facts">
${fact('Learner', learnerHtml(view.actor))}
${fact('Registration', value(view.registration))}
${fact('Store', value(context.storeName))}
${fact('Statements', escapeHtml(`${view.statements.length} (${byLms} by the LMS${voided > 0 ? `, ${voided} voided` : ''})`))}
${fact('Generated', escapeHtml(formatTime(context.generatedAt.toISOString())))}
</dl>
</header>
<main>
${outcomeSection(view)}
${context.reference ? referenceSection(view.outcome, context.reference) : ''}
${violationsSection(view.violations, numberOf)}
${timelineSection(view)}
${documentWritesSection(view)}
${documentsSection(view)}
</main>
<footer><p>Lore Test Bench. Times are UTC, as the Store stored them.</p></footer>
</body>
</html>
`;
}

// ---------------------------------------------------------------------------------------------
// Sections.

function outcomeSection(view: AttemptView): string {
  const rows = [
    ['Completion', completionText(view.outcome.completion)],
    ['Success', successText(view.outcome.success)],
    ['Score', scoreText(view.outcome.score)],
    ['Duration', durationText(view.outcome.duration)],
  ];
  const units =
    view.units.length > 1
      ? `<h3>By unit</h3>
<table>
<thead><tr><th>Unit</th><th>Completion</th><th>Success</th><th>Score</th><th>Duration</th></tr></thead>
<tbody>
${view.units
  .map(
    (unit) =>
      `<tr><td>${value(unit.unitId)}${unit.waived ? ' <span class="badge">waived</span>' : ''}</td><td>${escapeHtml(completionText(unit.outcome.completion))}</td><td>${escapeHtml(successText(unit.outcome.success))}</td><td>${escapeHtml(scoreText(unit.outcome.score))}</td><td>${escapeHtml(durationText(unit.outcome.duration))}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>`
      : '';
  return `<section>
<h2>Outcome</h2>
<p class="note">As an LMS records it, for the last unit launched.</p>
<table class="outcome">
<tbody>
${rows.map(([label, text]) => `<tr><th scope="row">${escapeHtml(label!)}</th><td>${escapeHtml(text!)}</td></tr>`).join('\n')}
</tbody>
</table>
${units}
</section>`;
}

function referenceSection(outcome: AttemptOutcome, reference: ReferenceOutcome): string {
  const verdict = referenceVerdict(outcome, reference);
  const headline =
    verdict.criteria.length === 0
      ? '<p class="verdict">The reference sets no criterion.</p>'
      : verdict.met
        ? '<p class="verdict met">Meets the reference.</p>'
        : '<p class="verdict not-met">Does not meet the reference.</p>';
  const rows = verdict.criteria.map(
    (criterion) =>
      `<tr><th scope="row">${escapeHtml(CRITERION_LABEL[criterion.criterion])}</th><td>${escapeHtml(criterion.expected)}</td><td>${escapeHtml(criterion.actual)}</td><td class="${criterion.met ? 'met' : 'not-met'}">${criterion.met ? '&#10003; Met' : '&#10007; Not met'}</td></tr>`,
  );
  return `<section>
<h2>Against the reference</h2>
${headline}
${
  rows.length > 0
    ? `<table>
<thead><tr><th>Criterion</th><th>Reference</th><th>This attempt</th><th>Verdict</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
    : ''
}
</section>`;
}

const CRITERION_LABEL: Record<ReferenceCriterion['criterion'], string> = { completion: 'Completion', success: 'Success', minScore: 'Score' };

function violationsSection(violations: Violation[], numberOf: Map<string, number>): string {
  if (violations.length === 0) return '<section>\n<h2>Rules broken</h2>\n<p>None: no statement breaks a rule the Test Bench checks.</p>\n</section>';
  const errors = violations.filter((violation) => violation.severity === 'error').length;
  const warnings = violations.length - errors;
  const rows = violations.map((violation) => {
    const number = violation.statementId === null ? undefined : numberOf.get(violation.statementId);
    const where = violation.statementId === null ? 'The attempt' : number === undefined ? `Statement ${violation.statementId}` : `#${number}`;
    return `<tr>${severityCell(violation.severity)}<td>${escapeHtml(violation.message)}</td><td><code>${escapeHtml(violation.rule)}</code></td><td>${escapeHtml(where)}</td></tr>`;
  });
  return `<section>
<h2>Rules broken</h2>
<p>${escapeHtml(`${plural(errors, 'error')}, ${plural(warnings, 'warning')}.`)}</p>
<table class="violations">
<thead><tr><th>Severity</th><th>What is wrong</th><th>Rule</th><th>Statement</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

function timelineSection(view: AttemptView): string {
  if (view.statements.length === 0) return '<section>\n<h2>Timeline</h2>\n<p>No statement yet.</p>\n</section>';
  const rows = view.statements.map((row, index) => {
    const sentence = sentenceHtml(row.statement, view.activityTitles);
    const violations = view.violations.filter((violation) => violation.statementId === row.id);
    const list =
      violations.length > 0
        ? `<ul class="broken">${violations.map((violation) => `<li>${severityBadge(violation.severity)} ${escapeHtml(violation.message)} <code>${escapeHtml(violation.rule)}</code></li>`).join('')}</ul>`
        : '';
    return `<tr${row.voided ? ' class="voided"' : ''}><td class="n">${index + 1}</td><td class="time">${escapeHtml(formatTime(row.stored))}</td><td>${row.byLms ? 'LMS' : 'Course'}</td><td>${row.voided ? `<s>${sentence}</s> <span class="badge">voided</span>` : sentence}${list}</td></tr>`;
  });
  return `<section>
<h2>Timeline</h2>
<table class="timeline">
<thead><tr><th>#</th><th>Stored (UTC)</th><th>By</th><th>Statement</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

/** Every State write in the order it happened, refused ones too, with what each changed. */
function documentWritesSection(view: AttemptView): string {
  if (view.documentWrites.length === 0) return '<section>\n<h2>State writes</h2>\n<p>None.</p>\n</section>';
  const rows = view.documentWrites.map((write) => {
    const changes =
      write.status !== 204 || write.method === 'DELETE'
        ? ''
        : write.changes === null
          ? '<span class="note">content not shown (not JSON or text, or too large)</span>'
          : write.changes.length === 0
            ? '<span class="note">no change</span>'
            : `<ul class="changes">${write.changes
                .map((change) => `<li><code>${escapeHtml(change.path || '(document)')}</code>: ${value(shortJson(change.before))} → ${value(shortJson(change.after))}</li>`)
                .join('')}</ul>`;
    const status = write.status === 204 ? 'done' : `refused (${write.status})`;
    return `<tr><td class="time">${escapeHtml(formatTime(write.at))}</td><td>${escapeHtml(write.method)}</td><td>${value(write.stateId)}</td><td>${escapeHtml(status)}</td><td>${changes}</td></tr>`;
  });
  return `<section>
<h2>State writes</h2>
<table class="writes">
<thead><tr><th>At (UTC)</th><th>Method</th><th>State id</th><th>Result</th><th>Change</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

function shortJson(input: unknown): string {
  const text = JSON.stringify(input) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function documentsSection(view: AttemptView): string {
  if (view.documents.length === 0) return '<section>\n<h2>State documents</h2>\n<p>None.</p>\n</section>';
  const documents = view.documents.map((document) => {
    const title = ownTitle(view.activityTitles, document.activityId);
    const text = typeof document.content === 'string' ? document.content : (JSON.stringify(document.content, null, 2) ?? '');
    return `<article class="document">
<h3><bdi>${escapeHtml(document.stateId)}</bdi></h3>
<dl class="facts">
${fact('Activity', title === undefined ? value(document.activityId) : `${value(title)} <span class="id">(${value(document.activityId)})</span>`)}
${fact('Updated', escapeHtml(formatTime(document.updated)))}
${fact('Content type', value(document.contentType))}
</dl>
<pre>${escapeHtml(text)}</pre>
</article>`;
  });
  return `<section>
<h2>State documents</h2>
<p class="note">As they are now, not each write.</p>
${documents.join('\n')}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Pieces of HTML.

/** An untrusted value: escaped and bidi-isolated. */
function value(text: string): string {
  return `<bdi>${escapeHtml(text)}</bdi>`;
}

function fact(label: string, html: string): string {
  return `<div><dt>${escapeHtml(label)}</dt><dd>${html}</dd></div>`;
}

function learnerHtml(actor: Record<string, unknown>): string {
  const name = agentName(actor);
  const id = agentIdentifier(actor);
  return id === undefined || id === name ? value(name) : `${value(name)} <span class="id">(${value(id)})</span>`;
}

function severityBadge(severity: string): string {
  return severity === 'error' ? '<span class="badge error">error</span>' : '<span class="badge warning">warning</span>';
}

function severityCell(severity: string): string {
  return `<td>${severityBadge(severity)}</td>`;
}

/** A sentence's parts: template words, and values from the statement. */
type Part = { text: string; value?: true };

function sentenceHtml(statement: unknown, titles: Record<string, string>): string {
  return statementParts(statement, titles)
    .map((part) => (part.value ? value(part.text) : escapeHtml(part.text)))
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Statement sentences, as the console words them.

type Json = Record<string, unknown>;

function isObject(candidate: unknown): candidate is Json {
  return typeof candidate === 'object' && candidate !== null && !Array.isArray(candidate);
}

/** "Bench Learner passed “Quiz” — score 90%, passed, 4 min 50 s", as parts. */
function statementParts(statement: unknown, titles: Record<string, string>, depth = 0): Part[] {
  if (!isObject(statement)) return [{ text: 'Not a statement' }];
  const actor = agentName(statement.actor);
  const parts: Part[] = [
    actor === 'someone' ? { text: 'Someone' } : { text: actor, value: true },
    { text: ' ' },
    ...verbParts(statement.verb),
    { text: ' ' },
    ...objectParts(statement.object, titles, depth),
  ];
  const result = resultSummary(statement.result);
  if (result.length > 0) parts.push({ text: ' — ' }, ...result);
  return parts;
}

/** A language map's text: en-US, then any English, then the first entry. */
/** The last meaningful segment of an IRI: `http://adlnet.gov/expapi/verbs/completed` → `completed`. */
function iriTail(iri: string): string {
  const trimmed = iri.replace(/[/#]+$/, '');
  const tail = trimmed.split(/[/#]/).pop();
  return tail && tail !== trimmed ? tail : iri;
}

/** An agent or group as a person reads it: its name, else its IFI without the scheme. */
function agentName(agent: unknown): string {
  if (!isObject(agent)) return 'someone';
  if (typeof agent.name === 'string' && agent.name.trim() !== '') return agent.name.trim();
  return agentIdentifier(agent) ?? (agent.objectType === 'Group' ? 'a group' : 'someone');
}

function agentIdentifier(agent: Json): string | undefined {
  if (typeof agent.mbox === 'string') return agent.mbox.replace(/^mailto:/i, '');
  if (isObject(agent.account) && typeof agent.account.name === 'string') return agent.account.name;
  if (typeof agent.openid === 'string') return agent.openid;
  if (typeof agent.mbox_sha1sum === 'string') return `agent ${agent.mbox_sha1sum.slice(0, 8)}…`;
  return undefined;
}

function verbParts(verb: unknown): Part[] {
  if (!isObject(verb)) return [{ text: 'did something with' }];
  const display = preferredText(verb.display) ?? (typeof verb.id === 'string' ? iriTail(verb.id) : undefined);
  return display === undefined ? [{ text: 'did something with' }] : [{ text: display, value: true }];
}

/** A title the package gives an id; never one of Object.prototype's keys. */
function ownTitle(titles: Record<string, string>, id: string): string | undefined {
  if (!Object.hasOwn(titles, id)) return undefined;
  const title = titles[id];
  return typeof title === 'string' && title !== '' ? title : undefined;
}

function objectParts(object: unknown, titles: Record<string, string>, depth: number): Part[] {
  if (!isObject(object)) return [{ text: 'something' }];
  switch (object.objectType) {
    case 'Agent':
    case 'Group':
      return [{ text: agentName(object), value: true }];
    case 'StatementRef':
      return typeof object.id === 'string' ? [{ text: 'statement ' }, { text: object.id.slice(0, 8), value: true }] : [{ text: 'a statement' }];
    case 'SubStatement':
      return depth > 0 ? [{ text: 'a statement' }] : [{ text: '“' }, ...statementParts(object, titles, depth + 1), { text: '”' }];
    default: {
      const definition = isObject(object.definition) ? object.definition : undefined;
      const id = typeof object.id === 'string' ? object.id : undefined;
      const name = preferredText(definition?.name) ?? (id === undefined ? undefined : (ownTitle(titles, id) ?? id));
      return name === undefined ? [{ text: 'an activity' }] : [{ text: '“' }, { text: name, value: true }, { text: '”' }];
    }
  }
}

/** score %, completed, passed or failed, duration; a response when there is nothing else. */
function resultSummary(result: unknown): Part[] {
  if (!isObject(result)) return [];
  const items: Part[][] = [];
  const score = isObject(result.score) ? result.score : undefined;
  if (typeof score?.scaled === 'number' && Number.isFinite(score.scaled)) items.push([{ text: `score ${percent(score.scaled)}` }]);
  else if (typeof score?.raw === 'number') items.push([{ text: `score ${score.raw}${typeof score.max === 'number' ? `/${score.max}` : ''}` }]);
  if (result.completion === true) items.push([{ text: 'completed' }]);
  if (result.completion === false) items.push([{ text: 'not completed' }]);
  if (result.success === true) items.push([{ text: 'passed' }]);
  if (result.success === false) items.push([{ text: 'failed' }]);
  if (typeof result.duration === 'string') {
    const seconds = durationSeconds(result.duration);
    items.push([seconds === null ? { text: result.duration, value: true } : { text: humanSeconds(seconds) }]);
  }
  if (typeof result.response === 'string' && items.length === 0) items.push([{ text: 'response “' }, { text: result.response.slice(0, 40), value: true }, { text: '”' }]);
  return items.flatMap((item, index) => (index === 0 ? item : [{ text: ', ' }, ...item]));
}

// ---------------------------------------------------------------------------------------------
// Values in words.

function durationText(duration: string | null): string {
  if (duration === null) return 'Not reported';
  const seconds = durationSeconds(duration);
  return seconds === null ? duration : `${humanSeconds(seconds)} (${duration})`;
}

const DURATION = /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;
/** Seconds per unit; a year and a month by their usual averages. */
const UNIT_SECONDS = [365 * 86_400, 30 * 86_400, 7 * 86_400, 86_400, 3_600, 60, 1];

function durationSeconds(duration: string): number | null {
  const match = DURATION.exec(duration);
  if (match === null || duration === 'P' || duration.endsWith('T')) return null;
  return UNIT_SECONDS.reduce((sum, unit, index) => sum + unit * Number((match[index + 1] ?? '0').replace(',', '.')), 0);
}

/** 4 min 50 s; 1 h 2 min; 0.5 s. */
function humanSeconds(total: number): string {
  const hundredths = Math.round(total * 100);
  const hours = Math.floor(hundredths / 360_000);
  const minutes = Math.floor((hundredths % 360_000) / 6_000);
  const seconds = (hundredths % 6_000) / 100;
  const parts = [...(hours > 0 ? [`${hours} h`] : []), ...(minutes > 0 ? [`${minutes} min`] : []), ...(seconds > 0 || (hours === 0 && minutes === 0) ? [`${seconds} s`] : [])];
  return parts.join(' ');
}

/** 2025-03-04T10:00:05.123Z → 2025-03-04 10:00:05.123; anything unreadable as it was written. */
function formatTime(iso: string): string {
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return iso;
  return new Date(time).toISOString().replace('T', ' ').replace(/\.000Z$|Z$/, '');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

// ---------------------------------------------------------------------------------------------

const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.facts div { display: contents; }
.facts dt { color: #57606a; }
.facts dd { margin: 0; }
.note, .id, footer { color: #57606a; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #e4e8ec; }
thead th { background: #f3f5f7; font-weight: 600; }
table.outcome { width: auto; }
table.outcome th { font-weight: 600; padding-right: 24px; }
td.n { color: #57606a; text-align: right; width: 3em; }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
td, dd, pre { overflow-wrap: anywhere; }
tr.voided td { color: #6e7781; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f6f8fa; border: 1px solid #e4e8ec; padding: 8px; white-space: pre-wrap; margin: 0; }
.badge { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #eaeef2; color: #424a53; }
.badge.error { background: #ffebe9; color: #a40e26; }
.badge.warning { background: #fff8c5; color: #7d4e00; }
ul.broken { margin: 4px 0 0; padding-left: 18px; }
.verdict { font-weight: 600; }
.met { color: #1a7f37; }
.not-met { color: #a40e26; }
tr, .document, pre { break-inside: avoid; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  h2 { break-after: avoid; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;
