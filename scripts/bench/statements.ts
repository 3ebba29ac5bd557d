/**
 * Realistic xAPI statements for the benchmark, generated deterministically from a seed: the same
 * seed gives the same learners, courses and statements on every run and every machine.
 *
 * The population: 20,000 learners (mbox, some with an account instead), 200 courses of 5 modules
 * of 8 activities (8,000 activities), 14 ADL verbs weighted as real e-learning traffic is
 * (experienced, attempted, answered far more than passed or voided-like verbs), results with
 * scores, durations and responses, contexts with registrations, parent/grouping activities,
 * platform, language and extensions. A statement serialises to roughly 1 KB.
 */

/** mulberry32: small, fast, good enough to spread test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEX = '0123456789abcdef';

/** A version-4-shaped UUID from the generator (deterministic, unlike crypto.randomUUID). */
export function uuidFrom(random: () => number): string {
  let out = '';
  for (let i = 0; i < 32; i++) {
    let digit = Math.floor(random() * 16);
    if (i === 12) digit = 4;
    if (i === 16) digit = 8 + (digit & 3);
    out += HEX[digit];
    if (i === 7 || i === 11 || i === 15 || i === 19) out += '-';
  }
  return out;
}

export const LEARNERS = 20_000;
export const COURSES = 200;
const MODULES_PER_COURSE = 5;
const ACTIVITIES_PER_MODULE = 8;

const VERBS: Array<{ id: string; display: string; weight: number }> = [
  { id: 'http://adlnet.gov/expapi/verbs/experienced', display: 'experienced', weight: 30 },
  { id: 'http://adlnet.gov/expapi/verbs/attempted', display: 'attempted', weight: 12 },
  { id: 'http://adlnet.gov/expapi/verbs/answered', display: 'answered', weight: 25 },
  { id: 'http://adlnet.gov/expapi/verbs/completed', display: 'completed', weight: 8 },
  { id: 'http://adlnet.gov/expapi/verbs/passed', display: 'passed', weight: 5 },
  { id: 'http://adlnet.gov/expapi/verbs/failed', display: 'failed', weight: 2 },
  { id: 'http://adlnet.gov/expapi/verbs/progressed', display: 'progressed', weight: 6 },
  { id: 'http://adlnet.gov/expapi/verbs/interacted', display: 'interacted', weight: 4 },
  { id: 'http://adlnet.gov/expapi/verbs/launched', display: 'launched', weight: 2 },
  { id: 'http://adlnet.gov/expapi/verbs/initialized', display: 'initialized', weight: 2 },
  { id: 'http://adlnet.gov/expapi/verbs/terminated', display: 'terminated', weight: 1 },
  { id: 'http://adlnet.gov/expapi/verbs/suspended', display: 'suspended', weight: 1 },
  { id: 'http://adlnet.gov/expapi/verbs/resumed', display: 'resumed', weight: 1 },
  { id: 'http://adlnet.gov/expapi/verbs/scored', display: 'scored', weight: 1 },
];
const VERB_TOTAL = VERBS.reduce((sum, verb) => sum + verb.weight, 0);

const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Katherine', 'Linus', 'Margaret', 'Niklaus', 'Radia', 'Tim', 'Whitfield', 'Sophie'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'McCarthy', 'Johnson', 'Torvalds', 'Hamilton', 'Wirth', 'Perlman', 'Berners-Lee', 'Diffie', 'Wilson'];
const TOPICS = ['safety', 'compliance', 'onboarding', 'leadership', 'finance', 'privacy', 'sales', 'support', 'security', 'ethics'];
const TYPES = [
  'http://adlnet.gov/expapi/activities/lesson',
  'http://adlnet.gov/expapi/activities/interaction',
  'http://adlnet.gov/expapi/activities/assessment',
  'http://adlnet.gov/expapi/activities/media',
];

export function learnerMbox(n: number): string {
  return `mailto:learner${n}@example.com`;
}

/** Learner n's name: first and last names repeat (about 80 learners share each pair), the number does not. */
export function learnerName(n: number): string {
  return `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]} ${n}`;
}

/** The actor of learner n: every tenth one is identified by an account, the rest by mbox. */
export function learner(n: number): Record<string, unknown> {
  const name = learnerName(n);
  if (n % 10 === 9) return { objectType: 'Agent', name, account: { homePage: 'https://lms.example.com', name: `u${n}` } };
  return { objectType: 'Agent', name, mbox: learnerMbox(n) };
}

export function courseId(course: number): string {
  return `https://courses.example.com/${TOPICS[course % TOPICS.length]}/course-${course}`;
}

export function activityId(course: number, module: number, item: number): string {
  return `${courseId(course)}/module-${module}/item-${item}`;
}

export function verbId(index: number): string {
  return VERBS[index % VERBS.length]!.id;
}

/** What the Explorer shows for verb `index`: its display. */
export function verbDisplay(index: number): string {
  return VERBS[index % VERBS.length]!.display;
}

/** The start of the names of a course's Activities: `Safety 10` (an item is `Safety 10, module 2, item 5`). */
export function courseTitle(course: number): string {
  const topic = TOPICS[course % TOPICS.length]!;
  return `${topic[0]!.toUpperCase()}${topic.slice(1)} ${course}`;
}

function pickVerb(random: () => number): (typeof VERBS)[number] {
  let r = random() * VERB_TOTAL;
  for (const verb of VERBS) {
    r -= verb.weight;
    if (r < 0) return verb;
  }
  return VERBS[0]!;
}

const BASE_TIME = Date.UTC(2026, 0, 1);

/**
 * The statement generator: `next()` gives the next statement of the sequence (no id: the LRS
 * assigns one, as it does for most content). Learners are skewed (a few are very active), as are
 * courses, so filters hit both common and rare values.
 */
export function statementGenerator(seed: number): { next(): Record<string, unknown> } {
  const random = prng(seed);
  let count = 0;
  return {
    next() {
      count++;
      // Skew: squaring a uniform number favours small learner and course numbers.
      const learnerNo = Math.floor(random() * random() * LEARNERS);
      const course = Math.floor(random() * random() * COURSES);
      const module = Math.floor(random() * MODULES_PER_COURSE);
      const item = Math.floor(random() * ACTIVITIES_PER_MODULE);
      const verb = pickVerb(random);
      const type = TYPES[item % TYPES.length]!;
      const topic = TOPICS[course % TOPICS.length]!;
      const timestamp = new Date(BASE_TIME + count * 3000 + Math.floor(random() * 1000)).toISOString();
      const scaled = Math.round(random() * 100) / 100;
      const statement: Record<string, unknown> = {
        actor: learner(learnerNo),
        verb: { id: verb.id, display: { 'en-US': verb.display } },
        object: {
          objectType: 'Activity',
          id: activityId(course, module, item),
          definition: {
            name: { 'en-US': `${courseTitle(course)}, module ${module}, item ${item}` },
            description: { 'en-US': `Item ${item} of module ${module} in the ${topic} course number ${course}.` },
            type,
          },
        },
        context: {
          registration: uuidFrom(random),
          platform: 'Lore bench LMS',
          language: 'en-US',
          contextActivities: {
            parent: [{ objectType: 'Activity', id: `${courseId(course)}/module-${module}` }],
            grouping: [{ objectType: 'Activity', id: courseId(course) }],
            category: [{ id: 'https://w3id.org/xapi/scorm' }],
          },
          extensions: {
            'https://lms.example.com/extensions/session': uuidFrom(random),
            'https://lms.example.com/extensions/cohort': `cohort-${learnerNo % 50}`,
          },
        },
        timestamp,
      };
      if (verb.display !== 'experienced' && verb.display !== 'launched' && verb.display !== 'initialized') {
        statement.result = {
          score: { scaled, raw: Math.round(scaled * 100), min: 0, max: 100 },
          success: scaled >= 0.6,
          completion: verb.display === 'completed' || verb.display === 'passed',
          duration: `PT${1 + Math.floor(random() * 59)}M${Math.floor(random() * 60)}S`,
          ...(verb.display === 'answered' ? { response: `choice-${Math.floor(random() * 4)}` } : {}),
        };
      }
      return statement;
    },
  };
}
