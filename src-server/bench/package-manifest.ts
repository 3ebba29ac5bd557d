/**
 * What a package is, read from its manifest: `cmi5.xml` (a cmi5 course structure) or `tincan.xml`
 * (a Tin Can package), as docs/test-bench-rules.md sections 1.3, 1.4 and 2 describe them. Every
 * refusal is a PackageError naming the manifest, worded for the person who published the package.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { safeRelativePath } from './package-archive';
import type { Cmi5Au, Cmi5Block, Cmi5Description, MoveOn, PackageDescription, PackageUnit, TincanDescription } from './package-description';
import { MOVE_ON_VALUES } from './package-description';
import { PackageError } from './package-error';

const COURSE_TYPE = 'http://adlnet.gov/expapi/activities/course';

// ---------------------------------------------------------------------------------------------
// XML: a plain element tree, namespace-aware, in document order.

interface XmlElement {
  /** The local name, prefix removed. */
  name: string;
  namespace: string;
  /** Unprefixed attributes, plus `xml:lang` as `lang` when there is no plain `lang`. */
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** The element's own text (CDATA included), trimmed. */
  text: string;
}

/** fast-xml-parser's preserveOrder shape: `{ tag: children, ':@': attributes }` or `{ '#text': value }`. */
type OrderedNode = Record<string, unknown>;

const PARSER_OPTIONS = {
  // Document order matters: cmi5 mixes `au` and `block` and their order is the course's.
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // Prefixes kept: toElement resolves them, so that a foreign `<ext:url>` is not read as `<url>`.
  removeNSPrefix: false,
  trimValues: true,
  // Strings stay strings: an id like `123` or a masteryScore like `0.80` is read as written.
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // A manifest needs no entities of its own; these bounds keep a DOCTYPE from expanding without end.
  processEntities: { enabled: true, maxEntityCount: 20, maxEntitySize: 1000, maxTotalExpansions: 1000, maxExpandedLength: 100_000 },
} as const;

function toElement(node: OrderedNode, scope: ReadonlyMap<string, string>): XmlElement | null {
  const tag = Object.keys(node).find((key) => key !== ':@' && key !== '#text');
  if (tag === undefined) return null;
  const raw = (node[':@'] ?? {}) as Record<string, unknown>;
  const inner = new Map(scope);
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'xmlns') inner.set('', String(value));
    else if (key.startsWith('xmlns:')) inner.set(key.slice(6), String(value));
  }
  const attributes = new Map<string, string>();
  for (const [key, value] of Object.entries(raw)) {
    if (!key.includes(':') && key !== 'xmlns') attributes.set(key, String(value).trim());
  }
  const xmlLang = raw['xml:lang'];
  if (!attributes.has('lang') && xmlLang !== undefined) attributes.set('lang', String(xmlLang).trim());

  const colon = tag.indexOf(':');
  const prefix = colon === -1 ? '' : tag.slice(0, colon);
  const children: XmlElement[] = [];
  let text = '';
  for (const child of node[tag] as OrderedNode[]) {
    if ('#text' in child) text += String(child['#text']);
    else {
      const element = toElement(child, inner);
      if (element !== null) children.push(element);
    }
  }
  return { name: tag.slice(colon + 1), namespace: inner.get(prefix) ?? '', attributes, children, text: text.trim() };
}

/** Drops the elements of another namespace than the root's: the manifests allow them anywhere, and they mean nothing here. */
function withoutForeign(element: XmlElement, namespace: string): XmlElement {
  return { ...element, children: element.children.filter((child) => child.namespace === namespace).map((child) => withoutForeign(child, namespace)) };
}

function parseXml(file: string, source: string): XmlElement {
  // A BOM is legal before the declaration, and some tools write one.
  const xml = source.replace(/^\uFEFF/, '');
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    throw new PackageError(file, `is not well-formed XML: ${msg} (line ${line}${col === undefined ? '' : `, column ${col}`})`);
  }
  let nodes: OrderedNode[];
  try {
    nodes = new XMLParser(PARSER_OPTIONS).parse(xml) as OrderedNode[];
  } catch (error) {
    throw new PackageError(file, `cannot be read as XML: ${error instanceof Error ? error.message : String(error)}`);
  }
  const roots = nodes.map((node) => toElement(node, new Map())).filter((element) => element !== null);
  if (roots.length !== 1) throw new PackageError(file, roots.length === 0 ? 'holds no XML element' : 'holds more than one root element');
  return withoutForeign(roots[0]!, roots[0]!.namespace);
}

const childrenNamed = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);
const firstChild = (element: XmlElement, name: string): XmlElement | undefined => element.children.find((child) => child.name === name);
/** The attribute's trimmed value, null when absent or empty. */
const attribute = (element: XmlElement, name: string): string | null => element.attributes.get(name) || null;

/** Among one string in several languages: the first English one (`en`, `en-US`…), else the first. Empty ones do not count. */
function pickLanguage(candidates: readonly XmlElement[]): string | null {
  const filled = candidates.filter((candidate) => candidate.text !== '');
  const english = filled.find((candidate) => /^en(-|$)/i.test(candidate.attributes.get('lang') ?? ''));
  return (english ?? filled[0])?.text ?? null;
}

// ---------------------------------------------------------------------------------------------
// The package's files.

/** Where a manifest's URL leads. */
type UrlTarget = { kind: 'absolute' } | { kind: 'outside' } | { kind: 'file'; path: string };

const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** `url` as the manifest writes it, resolved against the folder `root` ('' or ending in '/'). */
function resolveUrl(root: string, url: string): UrlTarget {
  // A scheme (`https:`, `app:`) or a network path (`//host/…`): content outside the package.
  if (URL_SCHEME.test(url) || url.startsWith('//')) return { kind: 'absolute' };
  if (url.startsWith('/') || url.startsWith('\\')) return { kind: 'outside' };
  const path = safeRelativePath(root + url.replace(/[?#].*$/s, ''));
  return path === null ? { kind: 'outside' } : { kind: 'file', path };
}

/** Whether the package holds the file a relative URL names: as percent-decoded, or as written for a name with a literal `%`. */
function holds(files: ReadonlySet<string>, path: string): boolean {
  if (files.has(path)) return true;
  try {
    return files.has(decodeURIComponent(path));
  } catch {
    return false;
  }
}

/** Refuses a URL that leaves the package's folder, or names a file the package does not hold; `subject` names the URL in the message. */
function checkUrl(files: ReadonlySet<string>, root: string, url: string, manifest: string, subject: string): void {
  const target = resolveUrl(root, url);
  if (target.kind === 'outside') throw new PackageError(manifest, `${subject} points outside the package`);
  if (target.kind === 'file' && !holds(files, target.path)) throw new PackageError(manifest, `${subject} is not in the package (looked for ${target.path})`);
}

const isLitter = (path: string): boolean => path.startsWith('__MACOSX/') || path === '.DS_Store' || path.endsWith('/.DS_Store');

/** The one folder everything under `root` sits in, as a new root; null when `root` holds a file or several folders. */
function soleFolder(paths: readonly string[], root: string): string | null {
  const folders = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(root)) continue;
    const rest = path.slice(root.length);
    const slash = rest.indexOf('/');
    if (slash === -1) return null;
    folders.add(rest.slice(0, slash));
  }
  const [folder] = folders;
  return folders.size === 1 ? `${root}${folder}/` : null;
}

/**
 * The manifest at the top of the package. Many tools zip a folder rather than its contents, so a
 * package whose every file sits in one folder (or one folder of one folder…) is read inside it,
 * as section 1.3 allows. cmi5.xml wins over tincan.xml: a cmi5 build of Adapt, say, may keep both.
 */
function findManifest(paths: readonly string[]): { root: string; kind: 'cmi5' | 'tincan' } {
  const kept = paths.filter((path) => !isLitter(path));
  const files = new Set(kept);
  for (let root: string | null = ''; root !== null; root = soleFolder(kept, root)) {
    if (files.has(`${root}cmi5.xml`)) return { root, kind: 'cmi5' };
    if (files.has(`${root}tincan.xml`)) return { root, kind: 'tincan' };
  }
  throw new PackageError(null, 'no tincan.xml or cmi5.xml at the top of the package (nor inside a single top-level folder): is it a Tin Can or cmi5 export?');
}

// ---------------------------------------------------------------------------------------------
// tincan.xml (section 1.3).

function describeTincan(files: ReadonlySet<string>, root: string, xml: string): TincanDescription {
  const FILE = 'tincan.xml';
  const document = parseXml(FILE, xml);
  if (document.name !== 'tincan') throw new PackageError(FILE, `the root element is <${document.name}>, not <tincan>`);
  const elements = childrenNamed(document, 'activities').flatMap((list) => childrenNamed(list, 'activity'));
  if (elements.length === 0) throw new PackageError(FILE, 'lists no <activity>');

  const activities = elements.map((element, index) => {
    const id = attribute(element, 'id');
    if (id === null) throw new PackageError(FILE, `activity ${index + 1} has no id`);
    return { id, type: attribute(element, 'type'), name: pickLanguage(childrenNamed(element, 'name')), launch: pickLanguage(childrenNamed(element, 'launch')) };
  });
  // Only the package's root activity carries <launch> (section 1.3); it is normally the course.
  const launchable = activities.filter((activity) => activity.launch !== null);
  const course = launchable.find((activity) => activity.type === COURSE_TYPE) ?? launchable[0];
  if (course === undefined) throw new PackageError(FILE, 'no activity has a <launch>, so there is nothing to start');
  const launch = course.launch!;
  checkUrl(files, root, launch, FILE, `the launch file "${launch}"`);

  const title = course.name ?? course.id;
  return {
    kind: 'tincan',
    title,
    root,
    launch,
    activityId: course.id,
    activities: activities.map(({ id, type, name }) => ({ id, type, name })),
    units: [{ id: course.id, title }],
  };
}

// ---------------------------------------------------------------------------------------------
// cmi5.xml (section 2).

const CMI5 = 'cmi5.xml';
const LAUNCH_METHODS = ['AnyWindow', 'OwnWindow'] as const;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** What reading one course structure keeps track of: every id seen, to refuse a second use. */
interface Cmi5Reading {
  files: ReadonlySet<string>;
  root: string;
  ids: Set<string>;
}

function langstring(element: XmlElement, name: string): string | null {
  const holder = firstChild(element, name);
  return holder === undefined ? null : pickLanguage(childrenNamed(holder, 'langstring'));
}

function claimId(reading: Cmi5Reading, element: XmlElement, what: string): string {
  const id = attribute(element, 'id');
  if (id === null) {
    const title = langstring(element, 'title');
    const article = /^[aeiou]/.test(what) ? 'an' : 'a';
    throw new PackageError(CMI5, `${title === null ? `${article} ${what}` : `the ${what} "${title}"`} has no id`);
  }
  if (reading.ids.has(id)) throw new PackageError(CMI5, `the id "${id}" is used twice (ids of the course, blocks and AUs must be unique)`);
  reading.ids.add(id);
  return id;
}

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T, what: string): T {
  if (value === null) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new PackageError(CMI5, `${what} is "${value}", not one of ${allowed.join(', ')}`);
}

function readAu(reading: Cmi5Reading, element: XmlElement): Cmi5Au {
  const id = claimId(reading, element, 'au');
  const label = `the au "${id}"`;
  const moveOn: MoveOn = oneOf(attribute(element, 'moveOn'), MOVE_ON_VALUES, 'NotApplicable', `the moveOn of ${label}`);
  const launchMethod = oneOf(attribute(element, 'launchMethod'), LAUNCH_METHODS, 'AnyWindow', `the launchMethod of ${label}`);

  const mastery = attribute(element, 'masteryScore');
  const masteryScore = mastery === null ? null : Number(mastery);
  if (mastery !== null && (!DECIMAL.test(mastery) || masteryScore! < 0 || masteryScore! > 1)) {
    throw new PackageError(CMI5, `the masteryScore of ${label} is "${mastery}", not a decimal from 0 to 1`);
  }

  const url = firstChild(element, 'url')?.text ?? '';
  if (url === '') throw new PackageError(CMI5, `${label} has no url`);
  checkUrl(reading.files, reading.root, url, CMI5, `the url "${url}" of ${label}`);

  const optionalText = (name: string): string | null => firstChild(element, name)?.text || null;
  return {
    kind: 'au',
    id,
    title: langstring(element, 'title') ?? id,
    url,
    moveOn,
    masteryScore,
    launchMethod,
    launchParameters: optionalText('launchParameters'),
    entitlementKey: optionalText('entitlementKey'),
    activityType: attribute(element, 'activityType'),
  };
}

function readBlock(reading: Cmi5Reading, element: XmlElement): Cmi5Block {
  const id = claimId(reading, element, 'block');
  const children = readStructure(reading, element);
  if (children.length === 0) throw new PackageError(CMI5, `the block "${id}" holds no au or block`);
  return { kind: 'block', id, title: langstring(element, 'title') ?? id, children };
}

/** The AUs and blocks among `parent`'s children, in document order; titles, objectives and the rest are not structure. */
function readStructure(reading: Cmi5Reading, parent: XmlElement): Array<Cmi5Au | Cmi5Block> {
  const structure: Array<Cmi5Au | Cmi5Block> = [];
  for (const child of parent.children) {
    if (child.name === 'au') structure.push(readAu(reading, child));
    else if (child.name === 'block') structure.push(readBlock(reading, child));
  }
  return structure;
}

function unitsOf(children: ReadonlyArray<Cmi5Au | Cmi5Block>): PackageUnit[] {
  return children.flatMap((child) => (child.kind === 'au' ? [{ id: child.id, title: child.title }] : unitsOf(child.children)));
}

function describeCmi5(files: ReadonlySet<string>, root: string, xml: string): Cmi5Description {
  const document = parseXml(CMI5, xml);
  if (document.name !== 'courseStructure') throw new PackageError(CMI5, `the root element is <${document.name}>, not <courseStructure>`);
  const courses = childrenNamed(document, 'course');
  if (courses.length !== 1) throw new PackageError(CMI5, courses.length === 0 ? 'has no <course>' : 'has more than one <course>');
  const reading: Cmi5Reading = { files, root, ids: new Set() };
  const courseId = claimId(reading, courses[0]!, 'course');
  const course = { id: courseId, title: langstring(courses[0]!, 'title') ?? courseId, description: langstring(courses[0]!, 'description') };

  // The AUs and blocks are the course's siblings, not its children (section 2).
  const children = readStructure(reading, document);
  const units = unitsOf(children);
  if (units.length === 0) throw new PackageError(CMI5, 'holds no <au>, so there is nothing to launch');
  return { kind: 'cmi5', title: course.title, root, course, children, units };
}

// ---------------------------------------------------------------------------------------------

/**
 * Describes the package whose files are `paths` (relative, forward slashes, as readPackageArchive
 * gives them); `readText` returns one of those files as text. Throws a PackageError when there is
 * no manifest, when it is not well-formed, or when it breaks a rule the Test Bench relies on.
 */
export function describePackage(paths: readonly string[], readText: (path: string) => string): PackageDescription {
  const { root, kind } = findManifest(paths);
  const files = new Set(paths);
  return kind === 'cmi5' ? describeCmi5(files, root, readText(`${root}cmi5.xml`)) : describeTincan(files, root, readText(`${root}tincan.xml`));
}
