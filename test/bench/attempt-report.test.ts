import { describe, expect, it } from 'vitest';
import { attemptJson, escapeHtml, renderAttemptReport } from '../../src-server/bench/attempt-report';
import { referenceVerdict } from '../../src-server/bench/reference-outcome';
import type { AttemptReportContext } from '../../src-server/bench/attempt-report';
import type { ReferenceOutcome } from '../../src-server/bench/reference-outcome';
import type { AttemptView } from '../../src-server/bench/attempts';

// A cmi5 attempt as attemptView() answers it: the LMS's launched, then the AU's initialized,
// completed, passed (with a timestamp that is not UTC, the one rule broken) and terminated, and the
// LMS.LaunchData State document the bench wrote before the launch.

const T0 = Date.parse('2025-03-04T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const uuid = (n: number) => `6f1c2e3a-0000-4000-8000-${n.toString().padStart(12, '0')}`;

const ADL = 'http://adlnet.gov/expapi/verbs/';
const EXT = 'https://w3id.org/xapi/cmi5/context/extensions/';
const CMI5_CATEGORY = { objectType: 'Activity', id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' };
const MOVEON_CATEGORY = { objectType: 'Activity', id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' };
const REGISTRATION = 'b3f1a7c2-9d4e-4f0a-8c61-2e5d7b9a1c30';
const SESSION = '5d0c7a4e-2f1b-4c1e-9a57-0b6e3f1d2c88';
const PACKAGE_ID = '3c9e51d0-7b2a-4c1e-8f3d-6a5b4c3d2e1f';
const AU_ID = `urn:lore:package:${PACKAGE_ID}:au:1`;
const COURSE_ID = `urn:lore:package:${PACKAGE_ID}:course`;
const PUBLISHER_ID = 'https://courses.example.org/cmi5/ladder-safety/au/quiz';
const ACTOR = { objectType: 'Agent', name: 'Bench Learner', mbox: 'mailto:learner@bench.example' };
const AU_KEY = 'key-session-1';
const LMS_KEY = 'key-lms';

type Row = AttemptView['statements'][number];

function statement(n: number, verb: string, seconds: number, options: { result?: Record<string, unknown>; byLms?: boolean; actor?: Record<string, unknown>; object?: Record<string, unknown>; timestamp?: string; display?: string | null } = {}): Row {
  const judged = options.result !== undefined && ('success' in options.result || 'completion' in options.result);
  const body: Record<string, unknown> = {
    id: uuid(n),
    actor: options.actor ?? ACTOR,
    verb: { id: `${ADL}${verb}`, ...(options.display === null ? {} : { display: { 'en-US': options.display ?? verb } }) },
    object: options.object ?? { objectType: 'Activity', id: AU_ID },
    ...(options.result ? { result: options.result } : {}),
    context: {
      registration: REGISTRATION,
      contextActivities: { grouping: [{ objectType: 'Activity', id: PUBLISHER_ID }], category: [CMI5_CATEGORY, ...(judged ? [MOVEON_CATEGORY] : [])] },
      extensions: { [`${EXT}sessionid`]: SESSION },
    },
    timestamp: options.timestamp ?? at(seconds),
    stored: at(seconds + 0.2),
    authority: { objectType: 'Agent', name: options.byLms ? 'Test Bench LMS' : 'Test Bench session', account: { homePage: 'urn:lore', name: options.byLms ? LMS_KEY : AU_KEY } },
    version: '1.0.0',
  };
  return { id: uuid(n), stored: at(seconds + 0.2), keyId: options.byLms ? LMS_KEY : AU_KEY, byLms: options.byLms ?? false, voided: false, statement: body };
}

const LAUNCH_DATA = {
  contextTemplate: {
    contextActivities: { grouping: [{ objectType: 'Activity', id: PUBLISHER_ID }] },
    extensions: { [`${EXT}sessionid`]: SESSION },
  },
  launchMode: 'Normal',
  moveOn: 'CompletedAndPassed',
  masteryScore: 0.8,
  returnURL: 'https://lms.example.org/return?x=<b>&y="1"',
};

function cmi5Attempt(): AttemptView {
  const passed = statement(4, 'passed', 291, {
    result: { score: { scaled: 0.9, raw: 9, min: 0, max: 10 }, success: true, duration: 'PT4M50S' },
    timestamp: '2025-03-04T11:04:51+01:00',
  });
  return {
    registration: REGISTRATION,
    packageId: PACKAGE_ID,
    actor: ACTOR,
    launches: [{ id: 'launch-1', unitId: PUBLISHER_ID, sessionId: SESSION, launchMode: 'Normal', createdAt: at(-1), fetchedAt: at(1), keyId: AU_KEY }],
    statements: [
      statement(1, 'launched', 0, { byLms: true }),
      statement(2, 'initialized', 3),
      statement(3, 'completed', 290, { result: { completion: true, duration: 'PT4M47S' } }),
      passed,
      statement(5, 'terminated', 300, { result: { duration: 'PT4M57S' } }),
    ],
    documents: [
      {
        stateId: 'LMS.LaunchData',
        activityId: AU_ID,
        updated: at(-0.5),
        etag: '"a1b2c3"',
        contentType: 'application/json',
        content: LAUNCH_DATA,
      },
    ],
    outcome: { completion: true, success: true, score: { scaled: 0.9, raw: 9, min: 0, max: 10 }, duration: 'PT4M57S' },
    units: [{ unitId: PUBLISHER_ID, outcome: { completion: true, success: true, score: { scaled: 0.9, raw: 9, min: 0, max: 10 }, duration: 'PT4M57S' }, waived: false }],
    violations: [{ statementId: uuid(4), rule: 'cmi5.timestamp', severity: 'error', message: 'passed has a timestamp that is not in UTC (2025-03-04T11:04:51+01:00)' }],
    activityTitles: { [COURSE_ID]: 'Ladder safety', [AU_ID]: 'Ladder safety quiz' },
    reference: null,
    verdict: null,
    documentWrites: [],
  };
}

const CONTEXT: AttemptReportContext = { courseTitle: 'Ladder safety', storeName: 'Bench: ladder safety', generatedAt: new Date('2025-03-04T10:30:00.000Z') };

/** The text a reader sees: tags dropped, entities read. */
function visibleText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#10003;/g, '✓')
    .replace(/&#10007;/g, '✗')
    .replace(/&amp;/g, '&');
}

/** The timeline row of statement n (1-based), as visible text. */
function timelineRow(html: string, n: number): string {
  const rows = html.slice(html.indexOf('<table class="timeline">')).split('<tr').slice(2); // header row first
  return rows[n - 1] ?? '';
}

describe('escapeHtml', () => {
  it('escapes the five characters and replaces the control characters HTML forbids', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
    expect(escapeHtml('tab\tline\nnul\u0000bell\u0007c1\u0085')).toBe('tab\tline\nnul\uFFFDbell\uFFFDc1\uFFFD');
    expect(escapeHtml('Ünïcødé ✓ 学习')).toBe('Ünïcødé ✓ 学习');
  });
});

describe('renderAttemptReport', () => {
  it('is one self-contained HTML5 document: charset, CSP, no script, link or external resource', () => {
    const html = renderAttemptReport(cmi5Attempt(), CONTEXT);
    expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(html).toContain('<title>Test Bench report: Ladder safety</title>');
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    for (const forbidden of ['<script', '<link', '<a ', '<img', '<iframe', 'href=', 'src=', 'url(', '@import']) expect(html).not.toContain(forbidden);
  });

  it('names the course, the learner, the registration, the Store and when it was made', () => {
    const text = visibleText(renderAttemptReport(cmi5Attempt(), CONTEXT));
    expect(text).toContain('Test Bench report: Ladder safety');
    expect(text).toContain('Bench Learner (learner@bench.example)');
    expect(text).toContain(REGISTRATION);
    expect(text).toContain('Bench: ladder safety');
    expect(text).toContain('2025-03-04 10:30:00');
    expect(text).toContain('5 (1 by the LMS)');
  });

  it('tells the outcome', () => {
    const text = visibleText(renderAttemptReport(cmi5Attempt(), CONTEXT));
    expect(text).toMatch(/Completion\s*Completed/);
    expect(text).toMatch(/Success\s*Passed/);
    expect(text).toMatch(/Score\s*90% \(raw 9 of 0–10\)/);
    expect(text).toMatch(/Duration\s*4 min 57 s \(PT4M57S\)/);
  });

  it('words each statement in stored order, says who sent it, and lists its violations under it', () => {
    const html = renderAttemptReport(cmi5Attempt(), CONTEXT);
    const rows = [1, 2, 3, 4, 5].map((n) => visibleText(timelineRow(html, n)));
    expect(rows[0]).toContain('2025-03-04 10:00:00.200');
    expect(rows[0]).toContain('LMSBench Learner launched “Ladder safety quiz”');
    expect(rows[1]).toContain('CourseBench Learner initialized “Ladder safety quiz”');
    expect(rows[2]).toContain('Bench Learner completed “Ladder safety quiz” — completed, 4 min 47 s');
    expect(rows[3]).toContain('Bench Learner passed “Ladder safety quiz” — score 90%, passed, 4 min 50 s');
    expect(rows[3]).toContain('error passed has a timestamp that is not in UTC (2025-03-04T11:04:51+01:00) cmi5.timestamp');
    expect(rows[4]).toContain('Bench Learner terminated “Ladder safety quiz” — 4 min 57 s');
    for (const row of [rows[0], rows[1], rows[2], rows[4]]) expect(row).not.toContain('cmi5.timestamp');
  });

  it('lists the violations with severity, message, rule and statement', () => {
    const html = renderAttemptReport(cmi5Attempt(), CONTEXT);
    const section = visibleText(html.slice(html.indexOf('<h2>Rules broken</h2>'), html.indexOf('<h2>Timeline</h2>')));
    expect(section).toContain('1 error, 0 warnings.');
    expect(section).toContain('errorpassed has a timestamp that is not in UTC (2025-03-04T11:04:51+01:00)cmi5.timestamp#4');
  });

  it('says when nothing is broken, nothing is stored and no document is written', () => {
    const view: AttemptView = { ...cmi5Attempt(), statements: [], documents: [], violations: [], outcome: { completion: null, success: null, score: null, duration: null } };
    const text = visibleText(renderAttemptReport(view, CONTEXT));
    expect(text).toContain('None: no statement breaks a rule the Test Bench checks.');
    expect(text).toContain('No statement yet.');
    expect(text).toMatch(/State documents\s*None\./);
    expect(text).toMatch(/Completion\s*Not reported/);
    expect(text).not.toContain('Against the reference');
  });

  it('shows the State documents with their JSON pretty-printed', () => {
    const html = renderAttemptReport(cmi5Attempt(), CONTEXT);
    expect(html).toContain('<h3><bdi>LMS.LaunchData</bdi></h3>');
    expect(html).toContain(`<pre>${escapeHtml(JSON.stringify(LAUNCH_DATA, null, 2))}</pre>`);
    const text = visibleText(html);
    expect(text).toContain(`Ladder safety quiz (${AU_ID})`);
    expect(text).toContain('"masteryScore": 0.8');
    expect(text).toContain('application/json');
    // The return URL is text, not a link.
    expect(html).toContain('https://lms.example.org/return?x=&lt;b&gt;&amp;y=\\&quot;1\\&quot;');
  });

  it('lists every State write in order, refused ones too, with what each changed', () => {
    const view = cmi5Attempt();
    const write = { activityId: AU_ID, keyId: 'k', etagBefore: null, etagAfter: null, registration: REGISTRATION, agent: '{}', contentType: 'application/json', content: null };
    view.documentWrites = [
      { ...write, id: 1, at: '2025-03-04T10:03:00.000Z', stateId: 'bookmark', method: 'PUT', status: 204, changes: [{ path: 'page', before: null, after: 1 }] },
      { ...write, id: 2, at: '2025-03-04T10:03:05.000Z', stateId: 'bookmark', method: 'PUT', status: 412, changes: [] },
      { ...write, id: 3, at: '2025-03-04T10:03:09.000Z', stateId: '<script>x</script>', method: 'POST', status: 204, changes: [{ path: 'note', before: null, after: '<img src=x onerror=alert(1)>' }] },
    ];
    const html = renderAttemptReport(view, CONTEXT);
    expect(html.includes('<script')).toBe(false);
    expect(html).not.toContain('<img');
    const section = visibleText(html.slice(html.indexOf('<h2>State writes</h2>'), html.indexOf('<h2>State documents</h2>')));
    expect(section).toMatch(/PUT\s*bookmark\s*done\s*page: null → 1/);
    expect(section).toMatch(/PUT\s*bookmark\s*refused \(412\)/);
    expect(section).toContain('note: null → "<img src=x onerror=alert(1)>"');
    expect(section.indexOf('refused (412)')).toBeLessThan(section.indexOf('<script>x</script>'));
    expect(visibleText(renderAttemptReport(cmi5Attempt(), CONTEXT))).toMatch(/State writes\s*None\./);
  });

  it('strikes voided statements through', () => {
    const view = cmi5Attempt();
    view.statements[2] = { ...view.statements[2]!, voided: true };
    const html = renderAttemptReport(view, CONTEXT);
    expect(timelineRow(html, 3)).toMatch(/^ class="voided"><td class="n">3<\/td>.*<s><bdi>Bench Learner<\/bdi> <bdi>completed<\/bdi>.*<\/s> <span class="badge">voided<\/span>/);
    expect(timelineRow(html, 2)).not.toContain('<s>');
    expect(visibleText(html)).toContain('5 (1 by the LMS, 1 voided)');
  });

  it('falls back as the console does: the IRI tail for a verb without display, the package title, then the id', () => {
    const view = cmi5Attempt();
    view.statements = [
      statement(1, 'progressed', 10, { display: null, object: { objectType: 'Activity', id: COURSE_ID }, result: { score: { raw: 7, max: 10 } } }),
      statement(2, 'experienced', 20, { object: { objectType: 'Activity', id: 'https://courses.example.org/slide/7' }, actor: { mbox: 'mailto:ada@example.org' } }),
      statement(3, 'answered', 30, { object: { objectType: 'Activity', id: AU_ID, definition: { name: { 'fr-FR': 'Quiz (fr)', 'en-GB': 'Quiz (en)' } } }, result: { response: 'extension-ladder' } }),
      statement(4, 'experienced', 40, { object: { objectType: 'Activity', id: 'constructor' } }),
    ];
    view.violations = [];
    const html = renderAttemptReport(view, CONTEXT);
    expect(visibleText(timelineRow(html, 1))).toContain('Bench Learner progressed “Ladder safety” — score 7/10');
    expect(visibleText(timelineRow(html, 2))).toContain('ada@example.org experienced “https://courses.example.org/slide/7”');
    expect(visibleText(timelineRow(html, 3))).toContain('Bench Learner answered “Quiz (en)” — response “extension-ladder”');
    // An id that is a key of Object.prototype is no title.
    expect(visibleText(timelineRow(html, 4))).toContain('Bench Learner experienced “constructor”');
  });

  it('escapes everything a statement, a document or a package carries', () => {
    const view = cmi5Attempt();
    const evilActor = { objectType: 'Agent', name: '<script>alert(1)</script>', mbox: 'mailto:x@example.org' };
    const evilObject = { objectType: 'Activity', id: AU_ID, definition: { name: { 'en-US': '"onmouseover=alert(1) x="' } } };
    view.actor = evilActor;
    view.registration = '<img src=x onerror=alert(1)>';
    view.statements = [
      statement(1, 'launched', 0, { byLms: true, actor: evilActor }),
      statement(2, 'initialized', 3, { actor: evilActor, object: evilObject, display: `<iframe srcdoc='x'>` }),
      statement(3, 'answered', 5, { object: { objectType: 'SubStatement', actor: evilActor, verb: { id: 'javascript:alert(1)' }, object: evilObject }, result: { duration: '<b>long</b>' } }),
    ];
    view.violations = [{ statementId: uuid(2), rule: '<script>rule</script>', severity: '<script>' as 'error', message: `actor <script>alert(1)</script> is not the launch actor` }];
    view.documents = [{ stateId: '<script>id</script>', activityId: 'javascript:alert(1)', updated: '<b>now</b>', etag: '"x"', contentType: 'text/html<script>', content: '<script>alert("doc")</script>' }];
    view.activityTitles = { 'javascript:alert(1)': '<script>title</script>' };
    view.units = [
      { unitId: '<script>unit</script>', outcome: view.outcome, waived: false },
      { unitId: 'second', outcome: view.outcome, waived: true },
    ];
    const html = renderAttemptReport(view, { ...CONTEXT, courseTitle: '</title><script>alert(1)</script>', storeName: `' onload='alert(1)` });

    expect(html.includes('<script')).toBe(false);
    expect(html).not.toContain('"onmouseover=');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<iframe');
    expect(html).not.toContain(`' onload='`);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;onmouseover=alert(1) x=&quot;');
    expect(html).toContain('<title>Test Bench report: &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
    // Every tag is one of the template's, and no attribute is an event handler.
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((match) => match[1]!.toLowerCase()));
    const allowed = ['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'main', 'footer', 'section', 'article', 'h1', 'h2', 'h3', 'p', 'dl', 'dt', 'dd', 'div', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ul', 'li', 'span', 'code', 'pre', 's', 'bdi'];
    expect([...tags].filter((tag) => !allowed.includes(tag))).toEqual([]);
    expect(html).not.toMatch(/<[^>]*\son\w+\s*=/i);
    // The words survive, as text.
    const text = visibleText(html);
    expect(text).toContain('<script>alert(1)</script> <iframe srcdoc=\'x\'> “"onmouseover=alert(1) x="”');
    expect(text).toContain('“<script>alert(1)</script> javascript:alert(1) “"onmouseover=alert(1) x="””');
    expect(text).toContain('<script>alert("doc")</script>');
  });

  it('isolates each value from the text around it, so a right-to-left override cannot reorder the sentence', () => {
    const view = cmi5Attempt();
    view.statements = [statement(1, 'initialized', 3, { actor: { ...ACTOR, name: 'Eve\u202E' } })];
    const html = renderAttemptReport(view, CONTEXT);
    expect(html).toContain('<bdi>Eve\u202E</bdi> <bdi>initialized</bdi>');
  });
});

describe('the reference verdict', () => {
  const sectionText = (html: string) => visibleText(html.slice(html.indexOf('<h2>Against the reference</h2>'), html.indexOf('<h2>Rules broken</h2>')));

  it('says the attempt meets a reference it meets, criterion by criterion', () => {
    const reference: ReferenceOutcome = { completion: true, success: true, minScore: 0.8 };
    const text = sectionText(renderAttemptReport(cmi5Attempt(), { ...CONTEXT, reference }));
    expect(text).toContain('Meets the reference.');
    expect(text).toContain('CompletionCompletedCompleted✓ Met');
    expect(text).toContain('SuccessPassedPassed✓ Met');
    expect(text).toContain('ScoreAt least 80%90% (raw 9 of 0–10)✓ Met');
    expect(text).not.toContain('Not met');
  });

  it('says which criteria an attempt that falls short does not meet', () => {
    const view = cmi5Attempt();
    view.outcome = { completion: true, success: false, score: { scaled: 0.6 }, duration: 'PT3M' };
    const reference: ReferenceOutcome = { completion: true, success: true, minScore: 0.8 };
    const text = sectionText(renderAttemptReport(view, { ...CONTEXT, reference }));
    expect(text).toContain('Does not meet the reference.');
    expect(text).toContain('CompletionCompletedCompleted✓ Met');
    expect(text).toContain('SuccessPassedFailed✗ Not met');
    expect(text).toContain('ScoreAt least 80%60%✗ Not met');
  });

  it('checks only the criteria the reference sets', () => {
    const outcome = cmi5Attempt().outcome;
    expect(referenceVerdict(outcome, { completion: null, success: null, minScore: null })).toEqual({ met: true, criteria: [] });
    expect(referenceVerdict(outcome, { completion: null, success: null, minScore: 0.9 }).met).toBe(true);
    expect(referenceVerdict(outcome, { completion: null, success: null, minScore: 0.91 }).met).toBe(false);
    expect(referenceVerdict(outcome, { completion: false, success: null, minScore: null }).met).toBe(false);
    const html = renderAttemptReport(cmi5Attempt(), { ...CONTEXT, reference: { completion: null, success: null, minScore: null } });
    expect(sectionText(html)).toContain('The reference sets no criterion.');
  });

  it('reads not started as not completed, not judged as neither passed nor failed, and a raw score within its range', () => {
    const notStarted = { completion: null, success: null, score: null, duration: null };
    expect(referenceVerdict(notStarted, { completion: false, success: null, minScore: null }).met).toBe(true);
    expect(referenceVerdict(notStarted, { completion: null, success: false, minScore: null }).met).toBe(false);
    expect(referenceVerdict(notStarted, { completion: null, success: null, minScore: 0 }).met).toBe(false);
    const raw = { completion: true, success: true, score: { raw: 15, min: 10, max: 20 }, duration: null };
    expect(referenceVerdict(raw, { completion: null, success: null, minScore: 0.5 }).met).toBe(true);
    expect(referenceVerdict(raw, { completion: null, success: null, minScore: 0.51 }).met).toBe(false);
    expect(referenceVerdict({ ...raw, score: { scaled: 0.1 + 0.7 } }, { completion: null, success: null, minScore: 0.8 }).met).toBe(true);
  });
});

describe('attemptJson', () => {
  it('is the attempt with its context, as pretty JSON that reads back', () => {
    const view = cmi5Attempt();
    const reference: ReferenceOutcome = { completion: true, success: true, minScore: 0.8 };
    const json = attemptJson(view, { ...CONTEXT, reference });
    expect(json).toContain('\n  "report": "lore-test-bench-attempt",\n');
    const parsed = JSON.parse(json) as Record<string, unknown>;
    expect(Object.keys(parsed).slice(0, 6)).toEqual(['report', 'version', 'course', 'store', 'generatedAt', 'reference']);
    expect(parsed).toMatchObject({ report: 'lore-test-bench-attempt', version: 1, course: 'Ladder safety', store: 'Bench: ladder safety', generatedAt: '2025-03-04T10:30:00.000Z', reference });
    expect(parsed.statements).toEqual(view.statements);
    expect(parsed.documents).toEqual(view.documents);
    expect(parsed.violations).toEqual(view.violations);
    expect(parsed.outcome).toEqual(view.outcome);
    expect(parsed.registration).toBe(REGISTRATION);
  });

  it('names no reference as null', () => {
    expect((JSON.parse(attemptJson(cmi5Attempt(), CONTEXT)) as { reference: unknown }).reference).toBeNull();
  });
});
