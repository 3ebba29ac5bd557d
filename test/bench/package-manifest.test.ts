import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageDescriptionSchema } from '../../src-server/bench/package-description';
import type { Cmi5Description, PackageDescription, TincanDescription } from '../../src-server/bench/package-description';
import { PackageError } from '../../src-server/bench/package-error';
import { describePackage } from '../../src-server/bench/package-manifest';

const MANIFESTS = new URL('../fixtures/packages/manifests/', import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, MANIFESTS), 'utf8');
}

/** Describes a package made of `files` (path → text; the text of the files besides the manifest does not matter). */
function describeFiles(files: Record<string, string>): PackageDescription {
  const description = describePackage(Object.keys(files), (path) => {
    const text = files[path];
    if (text === undefined) throw new Error(`read ${path}, which the package does not hold`);
    return text;
  });
  // What the admin API will answer with: it must fit the contract's schema.
  expect(packageDescriptionSchema.parse(description)).toEqual(description);
  return description;
}

function describeTincan(files: Record<string, string>): TincanDescription {
  const description = describeFiles(files);
  if (description.kind !== 'tincan') throw new Error(`expected a Tin Can package, got ${description.kind}`);
  return description;
}

function describeCmi5(files: Record<string, string>): Cmi5Description {
  const description = describeFiles(files);
  if (description.kind !== 'cmi5') throw new Error(`expected a cmi5 package, got ${description.kind}`);
  return description;
}

function refusal(files: Record<string, string>): PackageError {
  try {
    describeFiles(files);
  } catch (error) {
    expect(error).toBeInstanceOf(PackageError);
    return error as PackageError;
  }
  throw new Error('expected a PackageError, and the package was accepted');
}

const COURSE = 'http://adlnet.gov/expapi/activities/course';

/** A tincan.xml with one course activity. */
function tincanXml(activity: { id?: string; launch?: string; extra?: string }): string {
  return `<?xml version="1.0"?>
<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
  <activity id="${activity.id ?? 'https://example.org/course'}" type="${COURSE}">
    <name lang="en-US">A course</name>${activity.extra ?? ''}
    ${activity.launch === undefined ? '' : `<launch lang="en-US">${activity.launch}</launch>`}
  </activity>
</activities></tincan>`;
}

describe('describePackage: tincan.xml as each authoring tool writes it', () => {
  it('reads Storyline 360: the course, its launch file, and every listed activity', () => {
    expect(describeTincan({ 'tincan.xml': fixture('tincan/storyline/tincan.xml'), 'index_lms.html': '', 'story_content/data.js': '' })).toEqual({
      kind: 'tincan',
      title: 'Ladder Safety Basics',
      root: '',
      launch: 'index_lms.html',
      activityId: 'urn:articulate:storyline:7QfXa2LmB4k',
      activities: [
        { id: 'urn:articulate:storyline:7QfXa2LmB4k', type: COURSE, name: 'Ladder Safety Basics' },
        { id: 'urn:articulate:storyline:7QfXa2LmB4k/6aB3cD4eF5g', type: 'http://adlnet.gov/expapi/activities/module', name: 'Choosing a ladder' },
        {
          id: 'urn:articulate:storyline:7QfXa2LmB4k/5hI6jK7lM8n/6oP9qR0sT1u',
          type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
          name: 'Which ladder fits a gutter job?',
        },
      ],
      units: [{ id: 'urn:articulate:storyline:7QfXa2LmB4k', title: 'Ladder Safety Basics' }],
    });
  });

  it.each([
    ['storyline-classic', 'story.html', 'http://5LdrSafety1_course_id', 'Ladder Safety Basics', 2],
    ['rise', 'index.html', 'http://Qm4vT8xKp2Wn7Ld9Rs3Hy6Bc1Fg5Jz0a_rise', 'Handling Customer Data', 2],
    ['adapt', 'index.html', 'https://courses.example.org/xapi/fire-warden', 'Fire Warden Refresher', 1],
    ['ispring', 'res/index.html', 'ispring://presentations/3F2A9C41-7B0E-4D55-9E1A-6C8B2D4F7A10', 'Forklift Pre-Shift Check', 1],
    ['captivate', 'index_TINCAN.html', 'http://courses.example.org/captivate/first-aid-cpr', 'First Aid: CPR Steps', 1],
    ['lectora', 'a001index.html', 'http://courses.example.org/lectora/expense-policy', 'Expense Policy 2025', 1],
  ])('reads %s: launch %s', (tool, launch, activityId, title, activityCount) => {
    const description = describeTincan({ 'tincan.xml': fixture(`tincan/${tool}/tincan.xml`), [launch]: '' });
    expect(description).toMatchObject({ kind: 'tincan', root: '', launch, activityId, title, units: [{ id: activityId, title }] });
    expect(description.activities).toHaveLength(activityCount);
    expect(description.activities[0]).toEqual({ id: activityId, type: COURSE, name: title });
  });

  it('refuses each tool’s package when its launch file is missing, naming tincan.xml and the file', () => {
    for (const [tool, launch] of [
      ['storyline', 'index_lms.html'],
      ['ispring', 'res/index.html'],
      ['lectora', 'a001index.html'],
    ] as const) {
      const error = refusal({ 'tincan.xml': fixture(`tincan/${tool}/tincan.xml`), 'story.html': '', 'index.html': '' });
      expect(error.file).toBe('tincan.xml');
      expect(error.message).toBe(`tincan.xml: the launch file "${launch}" is not in the package (looked for ${launch})`);
    }
  });
});

describe('describePackage: finding the manifest', () => {
  it('reads a package zipped as one folder inside that folder, and resolves the launch there', () => {
    const description = describeTincan({
      'Ladder Safety - Storyline output/tincan.xml': fixture('tincan/storyline/tincan.xml'),
      'Ladder Safety - Storyline output/index_lms.html': '',
      '__MACOSX/Ladder Safety - Storyline output/._index_lms.html': '',
    });
    expect(description.root).toBe('Ladder Safety - Storyline output/');
    expect(description.launch).toBe('index_lms.html');
  });

  it('goes down a chain of single folders', () => {
    expect(describeTincan({ 'export/course/tincan.xml': tincanXml({ launch: 'index.html' }), 'export/course/index.html': '' }).root).toBe('export/course/');
  });

  it('does not look for the launch file at the zip root when the manifest sits in a folder', () => {
    const error = refusal({ 'course/tincan.xml': tincanXml({ launch: 'index.html' }), 'course/story.html': '' });
    expect(error.file).toBe('tincan.xml');
    expect(error.problem).toContain('looked for course/index.html');
  });

  it('prefers cmi5.xml when the package has both', () => {
    const description = describeFiles({
      'tincan.xml': fixture('tincan/adapt/tincan.xml'),
      'cmi5.xml': fixture('cmi5/ladder-safety/cmi5.xml'),
      'index.html': '',
      'intro/index.html': '',
      'quiz/index.html': '',
    });
    expect(description.kind).toBe('cmi5');
  });

  it.each([
    ['no manifest at all', { 'index.html': '', 'story.html': '' }],
    ['a manifest in one of two folders', { 'a/tincan.xml': tincanXml({ launch: 'index.html' }), 'a/index.html': '', 'b/readme.txt': '' }],
    ['a manifest one folder down beside a file at the root', { 'readme.txt': '', 'a/tincan.xml': tincanXml({ launch: 'index.html' }), 'a/index.html': '' }],
    ['a manifest named otherwise', { 'imsmanifest.xml': '<manifest/>', 'index.html': '' }],
    ['an empty package', {}],
  ])('refuses %s, naming no file', (_case, files) => {
    const error = refusal(files);
    expect(error.file).toBeNull();
    expect(error.message).toMatch(/^no tincan\.xml or cmi5\.xml at the top of the package/);
  });
});

describe('describePackage: tincan.xml details', () => {
  it('accepts an absolute launch URL without looking for a file', () => {
    const description = describeTincan({ 'tincan.xml': tincanXml({ launch: 'https://cdn.example.org/course/index.html' }) });
    expect(description.launch).toBe('https://cdn.example.org/course/index.html');
  });

  it('keeps the launch’s query string, and finds a percent-encoded file name', () => {
    expect(describeTincan({ 'tincan.xml': tincanXml({ launch: 'index.html?lang=fr#start' }), 'index.html': '' }).launch).toBe('index.html?lang=fr#start');
    expect(describeTincan({ 'tincan.xml': tincanXml({ launch: 'story%20html5.html' }), 'story html5.html': '' }).launch).toBe('story%20html5.html');
    expect(describeTincan({ 'tincan.xml': tincanXml({ launch: ' ./res/index.html ' }), 'res/index.html': '' }).launch).toBe('./res/index.html');
  });

  it.each(['/index.html', '../index.html', 'res/../../index.html'])('refuses the launch %j, which leaves the package', (launch) => {
    const error = refusal({ 'tincan.xml': tincanXml({ launch }), 'index.html': '', 'res/index.html': '' });
    expect(error.file).toBe('tincan.xml');
    expect(error.problem).toBe(`the launch file "${launch}" points outside the package`);
  });

  it('reads a file that starts with a byte order mark', () => {
    expect(describeTincan({ 'tincan.xml': `\uFEFF${fixture('tincan/rise/tincan.xml')}`, 'index.html': '' }).title).toBe('Handling Customer Data');
  });

  it('takes the course activity that carries <launch>, wherever it is listed', () => {
    const xml = `<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities>
      <activity id="https://example.org/course/m1" type="http://adlnet.gov/expapi/activities/module"><name>Module</name></activity>
      <activity id="https://example.org/course" type="${COURSE}"><name>Course</name><launch>index.html</launch></activity>
    </activities></tincan>`;
    const description = describeTincan({ 'tincan.xml': xml, 'index.html': '' });
    expect(description).toMatchObject({ activityId: 'https://example.org/course', title: 'Course' });
    expect(description.activities.map((activity) => activity.id)).toEqual(['https://example.org/course/m1', 'https://example.org/course']);
  });

  it('prefers the English name, reads xml:lang, and falls back to the id when there is no name', () => {
    const names = '<name lang="fr-FR">Cours</name><name xml:lang="en-GB">Course</name>';
    expect(describeTincan({ 'tincan.xml': tincanXml({ launch: 'index.html', extra: names }).replace('<name lang="en-US">A course</name>', ''), 'index.html': '' }).title).toBe(
      'Course',
    );
    const nameless = tincanXml({ launch: 'index.html' }).replace('<name lang="en-US">A course</name>', '<name lang="und"></name>');
    const description = describeTincan({ 'tincan.xml': nameless, 'index.html': '' });
    expect(description.title).toBe('https://example.org/course');
    expect(description.activities[0]!.name).toBeNull();
  });

  it('ignores elements of another namespace', () => {
    const extra = '<x:launch xmlns:x="https://example.org/ext">evil.html</x:launch><launch xmlns="https://example.org/ext">evil.html</launch>';
    expect(describeTincan({ 'tincan.xml': tincanXml({ launch: 'index.html', extra }), 'index.html': '' }).launch).toBe('index.html');
  });

  it('refuses XML that is not well-formed, with the parser’s line', () => {
    const error = refusal({ 'tincan.xml': fixture('tincan/broken-not-xml/tincan.xml'), 'index.html': '' });
    expect(error.file).toBe('tincan.xml');
    expect(error.problem).toMatch(/^is not well-formed XML: .+ \(line 5, column \d+\)$/);
  });

  it('refuses a manifest whose activities carry no <launch>', () => {
    const error = refusal({ 'tincan.xml': fixture('tincan/broken-no-launch/tincan.xml'), 'index.html': '' });
    expect(error.message).toBe('tincan.xml: no activity has a <launch>, so there is nothing to start');
  });

  it.each([
    ['another root element', '<manifest><activities/></manifest>', 'the root element is <manifest>, not <tincan>'],
    ['no activity', '<tincan xmlns="http://projecttincan.com/tincan.xsd"><activities/></tincan>', 'lists no <activity>'],
    ['an activity without id', tincanXml({ launch: 'index.html' }).replace('<activity id="https://example.org/course"', '<activity'), 'activity 1 has no id'],
    ['two root elements', '<tincan/><tincan/>', 'holds more than one root element'],
    ['no element', '', 'is not well-formed XML'],
  ])('refuses %s', (_case, xml, problem) => {
    const error = refusal({ 'tincan.xml': xml, 'index.html': '' });
    expect(error.file).toBe('tincan.xml');
    expect(error.problem).toContain(problem);
  });
});

const LADDER = 'https://courses.example.org/cmi5/ladder-safety';
const LADDER_FILES = { 'intro/index.html': '', 'quiz/index.html': '', 'quiz/app.js': '' };

/** A cmi5.xml with a course and `structure` as its AUs and blocks. */
function cmi5Xml(structure: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="https://example.org/c"><title><langstring lang="en-US">C</langstring></title><description/></course>
  ${structure}
</courseStructure>`;
}

const au = (id: string, attributes = '', url = `${id}.html`): string =>
  `<au id="https://example.org/${id}" ${attributes}><title><langstring lang="en-US">${id}</langstring></title><description/><url>${url}</url></au>`;

describe('describePackage: cmi5.xml', () => {
  it('reads the course, its block and AUs, with the defaults of an AU', () => {
    expect(describeCmi5({ 'cmi5.xml': fixture('cmi5/ladder-safety/cmi5.xml'), ...LADDER_FILES })).toEqual({
      kind: 'cmi5',
      title: 'Ladder Safety',
      root: '',
      course: { id: LADDER, title: 'Ladder Safety', description: 'Choosing, checking and climbing ladders.' },
      children: [
        {
          kind: 'block',
          id: `${LADDER}/block/core`,
          title: 'Core lessons',
          children: [
            {
              kind: 'au',
              id: `${LADDER}/au/intro`,
              title: 'Introduction',
              url: 'intro/index.html',
              moveOn: 'Completed',
              masteryScore: null,
              launchMethod: 'AnyWindow',
              launchParameters: null,
              entitlementKey: null,
              activityType: null,
            },
            {
              kind: 'au',
              id: `${LADDER}/au/quiz`,
              title: 'Check your knowledge',
              url: 'quiz/index.html?theme=dark',
              moveOn: 'CompletedAndPassed',
              masteryScore: 0.8,
              launchMethod: 'AnyWindow',
              launchParameters: 'questions=10',
              entitlementKey: 'ldr-2025',
              activityType: null,
            },
          ],
        },
      ],
      units: [
        { id: `${LADDER}/au/intro`, title: 'Introduction' },
        { id: `${LADDER}/au/quiz`, title: 'Check your knowledge' },
      ],
    });
  });

  it('keeps AUs and blocks in document order, nested blocks included', () => {
    const xml = cmi5Xml(`${au('a1')}
      <block id="https://example.org/b1"><title><langstring lang="en">B1</langstring></title><description/>
        ${au('a2')}
        <block id="https://example.org/b2"><title><langstring lang="en">B2</langstring></title><description/>${au('a3')}</block>
      </block>
      ${au('a4', 'moveOn="Passed" launchMethod="OwnWindow" masteryScore="1" activityType="https://example.org/types/quiz"')}`);
    const description = describeCmi5({ 'cmi5.xml': xml, 'a1.html': '', 'a2.html': '', 'a3.html': '', 'a4.html': '' });
    expect(description.children.map((child) => `${child.kind} ${child.id}`)).toEqual(['au https://example.org/a1', 'block https://example.org/b1', 'au https://example.org/a4']);
    expect(description.units.map((unit) => unit.title)).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(description.children[2]).toMatchObject({ moveOn: 'Passed', launchMethod: 'OwnWindow', masteryScore: 1, activityType: 'https://example.org/types/quiz' });
    expect(description.course.description).toBeNull();
  });

  it('trims values, as the spec’s own samples need', () => {
    const xml = cmi5Xml(`<au id="  https://example.org/a1  " moveOn=" Completed ">
      <title><langstring lang="en-US">
        Spaced out
      </langstring></title>
      <url>
        a1/index.html
      </url></au>`);
    const description = describeCmi5({ 'cmi5.xml': xml, 'a1/index.html': '' });
    expect(description.units).toEqual([{ id: 'https://example.org/a1', title: 'Spaced out' }]);
    expect(description.children[0]).toMatchObject({ url: 'a1/index.html', moveOn: 'Completed' });
  });

  it('picks the English langstring, else the first', () => {
    const titled = (langstrings: string) =>
      describeCmi5({
        'cmi5.xml': cmi5Xml(`<au id="https://example.org/a1"><title>${langstrings}</title><url>a1.html</url></au>`),
        'a1.html': '',
      }).units[0]!.title;
    expect(titled('<langstring lang="fr-FR">Bonjour</langstring><langstring lang="en-US">Hello</langstring>')).toBe('Hello');
    expect(titled('<langstring lang="de-DE">Hallo</langstring><langstring lang="fr-FR">Bonjour</langstring>')).toBe('Hallo');
    expect(titled('<langstring lang="de">Hallo</langstring><langstring lang="EN">Hello</langstring>')).toBe('Hello');
  });

  it('accepts absolute URLs, a custom scheme included, without looking for a file', () => {
    const xml = cmi5Xml(`${au('a1', '', 'https://cdn.example.org/a1/index.html')}${au('a2', '', 'app://trainer/launch')}`);
    expect(describeCmi5({ 'cmi5.xml': xml }).units).toHaveLength(2);
  });

  it('resolves URLs inside the folder that holds cmi5.xml', () => {
    const description = describeCmi5({ 'ladder/cmi5.xml': fixture('cmi5/ladder-safety/cmi5.xml'), 'ladder/intro/index.html': '', 'ladder/quiz/index.html': '' });
    expect(description.root).toBe('ladder/');
    const error = refusal({ 'ladder/cmi5.xml': fixture('cmi5/ladder-safety/cmi5.xml'), 'ladder/intro/index.html': '', 'ladder/readme.txt': '' });
    expect(error.message).toBe(`cmi5.xml: the url "quiz/index.html?theme=dark" of the au "${LADDER}/au/quiz" is not in the package (looked for ladder/quiz/index.html)`);
  });

  it('ignores elements and attributes of another namespace', () => {
    const xml = cmi5Xml(`<au xmlns:ext="https://example.org/ext" id="https://example.org/a1" ext:moveOn="Sideways">
      <title><langstring lang="en">a1</langstring></title>
      <ext:url>missing.html</ext:url><url>a1.html</url><ext:block id="x"/>
    </au>`);
    const description = describeCmi5({ 'cmi5.xml': xml, 'a1.html': '' });
    expect(description.children[0]).toMatchObject({ url: 'a1.html', moveOn: 'NotApplicable' });
  });

  it('accepts masteryScore 0, 1 and .5', () => {
    const xml = cmi5Xml(`${au('a1', 'masteryScore="0"')}${au('a2', 'masteryScore="1.0"')}${au('a3', 'masteryScore=".5"')}`);
    const description = describeCmi5({ 'cmi5.xml': xml, 'a1.html': '', 'a2.html': '', 'a3.html': '' });
    expect(description.children.map((child) => (child.kind === 'au' ? child.masteryScore : undefined))).toEqual([0, 1, 0.5]);
  });

  describe('refuses a broken course structure, naming cmi5.xml', () => {
    it('an AU with no url', () => {
      const error = refusal({ 'cmi5.xml': fixture('cmi5/broken-no-url/cmi5.xml'), ...LADDER_FILES });
      expect(error.file).toBe('cmi5.xml');
      expect(error.message).toBe(`cmi5.xml: the au "${LADDER}/au/intro" has no url`);
    });

    it('a masteryScore above 1', () => {
      const error = refusal({ 'cmi5.xml': fixture('cmi5/broken-mastery-score/cmi5.xml'), ...LADDER_FILES });
      expect(error.message).toBe(`cmi5.xml: the masteryScore of the au "${LADDER}/au/quiz" is "80", not a decimal from 0 to 1`);
    });

    it('an id used twice', () => {
      const error = refusal({ 'cmi5.xml': fixture('cmi5/broken-duplicate-id/cmi5.xml'), ...LADDER_FILES });
      expect(error.message).toBe(`cmi5.xml: the id "${LADDER}/au/intro" is used twice (ids of the course, blocks and AUs must be unique)`);
    });

    it('XML that is not well-formed, with the parser’s line', () => {
      const error = refusal({ 'cmi5.xml': fixture('cmi5/broken-not-xml/cmi5.xml'), ...LADDER_FILES });
      expect(error.file).toBe('cmi5.xml');
      expect(error.problem).toMatch(/^is not well-formed XML: .*langstring.* \(line 14, column \d+\)$/);
    });

    it('a relative url the package does not hold', () => {
      const error = refusal({ 'cmi5.xml': fixture('cmi5/ladder-safety/cmi5.xml'), 'intro/index.html': '' });
      expect(error.message).toBe(`cmi5.xml: the url "quiz/index.html?theme=dark" of the au "${LADDER}/au/quiz" is not in the package (looked for quiz/index.html)`);
    });

    it.each([
      ['masteryScore="-0.1"', 'masteryScore', '"-0.1", not a decimal from 0 to 1'],
      ['masteryScore="1.0001"', 'masteryScore', '"1.0001", not a decimal from 0 to 1'],
      ['masteryScore="high"', 'masteryScore', '"high", not a decimal from 0 to 1'],
      ['moveOn="Attempted"', 'moveOn', '"Attempted", not one of Passed, Completed, CompletedAndPassed, CompletedOrPassed, NotApplicable'],
      ['launchMethod="Iframe"', 'launchMethod', '"Iframe", not one of AnyWindow, OwnWindow'],
    ])('an AU with %s', (attributes, name, problem) => {
      const error = refusal({ 'cmi5.xml': cmi5Xml(au('a1', attributes)), 'a1.html': '' });
      expect(error.message).toBe(`cmi5.xml: the ${name} of the au "https://example.org/a1" is ${problem}`);
    });

    it.each([
      ['another root element', '<course id="https://example.org/c"/>', 'the root element is <course>, not <courseStructure>'],
      ['no course', cmi5Xml(au('a1')).replace(/<course .*<\/course>/, ''), 'has no <course>'],
      ['two courses', cmi5Xml(`<course id="https://example.org/c2"/>${au('a1')}`), 'has more than one <course>'],
      ['a course without id', cmi5Xml(au('a1')).replace('<course id="https://example.org/c">', '<course>'), 'the course "C" has no id'],
      ['no AU', cmi5Xml(''), 'holds no <au>, so there is nothing to launch'],
      ['an empty block', cmi5Xml(`${au('a1')}<block id="https://example.org/b"><title/></block>`), 'the block "https://example.org/b" holds no au or block'],
      ['an AU without id', cmi5Xml(au('a1').replace('id="https://example.org/a1" ', '')), 'the au "a1" has no id'],
      ['an AU without id or title', cmi5Xml('<au><url>a1.html</url></au>'), 'an au has no id'],
      ['a block reusing the course id', cmi5Xml(`<block id="https://example.org/c">${au('a1')}</block>`), 'the id "https://example.org/c" is used twice'],
      ['a url leaving the package', cmi5Xml(au('a1', '', '../a1.html')), 'the url "../a1.html" of the au "https://example.org/a1" points outside the package'],
    ])('%s', (_case, xml, problem) => {
      const error = refusal({ 'cmi5.xml': xml, 'a1.html': '' });
      expect(error.file).toBe('cmi5.xml');
      expect(error.problem).toContain(problem);
    });
  });
});
