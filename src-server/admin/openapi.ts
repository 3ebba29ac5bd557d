/**
 * The admin API's OpenAPI 3.1 description, generated from the contract (`adminOperations` and
 * `adminRawOperations`) with zod's own JSON Schema output: the schemas the service validates with
 * are the ones described. Served at GET /admin/api/openapi.json; test/admin/openapi-drift.test.ts
 * keeps it equal to the routes the server registers.
 */
import { z } from 'zod';
import { adminOperations, adminRawOperations, errorBodySchema } from './contract';
import type { AdminOperationName, AdminRawOperationName } from './contract';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Operations that answer 201 (they create something); the others answer 200, or 204 without a body. */
const CREATED: ReadonlySet<AdminOperationName> = new Set(['stores.create', 'apiKeys.create', 'apiKeys.rotate', 'packages.launch', 'forwarders.create', 'imports.start']);

/** What the raw operations' answers are, in words: their media type alone does not say. */
const RAW_PROSE: Record<AdminRawOperationName, { summary: string; description: string; answer: string }> = {
  'events.stream': {
    summary: 'Live events (server-sent events)',
    description:
      'A text/event-stream of `event: statement` messages, one per statement accepted, voided or rejected, and ' +
      '`event: refusal` messages, one per refused request logged, each with the JSON below as data; a comment line ' +
      'every 15 s. Read it with fetch: it needs the Authorization header.',
    answer: 'The stream; it stays open until the client or the service closes it.',
  },
  'backups.download': {
    summary: 'A backup of the whole database (a download)',
    description:
      'The whole database as an SQLite file, from a consistent point: every write acknowledged before the request is in it. ' +
      '`npm run restore` puts it back. Scheduled backups are written by the service itself (see `backups` in the status). ' +
      'A storage that takes no backups itself answers 501.',
    answer: 'The SQLite file, as an attachment.',
  },
  'packages.import': {
    summary: 'Import a course package into a test Store (Test Bench)',
    description:
      'The body is the zip of a Tin Can (tincan.xml) or cmi5 (cmi5.xml) package, as an authoring tool publishes it. ' +
      'A package whose paths leave its folder, over the size limits, or with a broken manifest is refused with 400 naming the file and the problem.',
    answer: 'The package as listed (201).',
  },
  'attempts.report': {
    summary: 'A Test Bench attempt as a report to keep (a download)',
    description:
      'format=html (default): a self-contained page a person reads or prints: the outcome, the verdict against the package\'s reference, ' +
      'the rules broken, the timeline and the State documents. format=json: the same data as application/json, for tools.',
    answer: 'The report, as an attachment.',
  },
  'statements.export': {
    summary: 'Export what an Explorer filter shows (a download)',
    description:
      'The Explorer\'s filters, every record they match, streamed newest first. format=ndjson: application/x-ndjson, one statement as stored ' +
      'a line (what GET /statements answers), accepted and voided ones only: a rejected entry is no statement. format=csv: text/csv, ' +
      'one row per record with its status, rejected ones included, columns a person reads. A filter that matches nothing is an empty file.',
    answer: 'The file, as an attachment.',
  },
  'openapi.get': {
    summary: 'This description',
    description: 'No token needed: it holds no data.',
    answer: 'The OpenAPI 3.1 document.',
  },
};

export const ADMIN_API_PREFIX = '/admin/api';

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const errorResponse = {
  description: 'An error, in the service-wide shape: status, a stable code, a message in plain words, the field at fault.',
  content: { 'application/json': { schema: jsonSchema(errorBodySchema, 'output') } },
};

function parameters(input: JsonSchema, names: string[], where: 'path' | 'query'): Array<Record<string, unknown>> {
  return names.map((name) => ({
    name,
    in: where,
    required: where === 'path' || (input.required ?? []).includes(name),
    schema: input.properties?.[name] ?? {},
  }));
}

/**
 * One operation: `:name` path segments become path parameters; the rest of the input is the query
 * string of a GET or DELETE and the JSON body of a POST or PATCH (as buildAdminRequest sends it).
 */
function describeOperation(
  name: string,
  operation: { method: Method; path: string; input: z.ZodType },
  described: { summary: string; description?: string; needsAdminToken: boolean; responses: Record<string, unknown> },
): { path: string; method: string; operation: Record<string, unknown> } {
  const pathParams = [...operation.path.matchAll(/:([a-zA-Z]+)/g)].map((match) => match[1]!);
  const input = jsonSchema(operation.input, 'input');
  const rest = Object.keys(input.properties ?? {}).filter((key) => !pathParams.includes(key));
  const inQuery = operation.method === 'GET' || operation.method === 'DELETE';
  const result: Record<string, unknown> = {
    operationId: name,
    summary: described.summary,
    ...(described.description ? { description: described.description } : {}),
    tags: [name.split('.')[0]],
    security: described.needsAdminToken ? [{ adminToken: [] }] : [],
    parameters: [...parameters(input, pathParams, 'path'), ...(inQuery ? parameters(input, rest, 'query') : [])],
    responses: { ...described.responses, default: errorResponse },
  };
  if (!inQuery && rest.length > 0) {
    const required = (input.required ?? []).filter((key) => rest.includes(key));
    const body: JsonSchema = { ...input, properties: Object.fromEntries(rest.map((key) => [key, input.properties![key]!])) };
    if (required.length > 0) body.required = required;
    else delete body.required;
    result.requestBody = { required: required.length > 0, content: { 'application/json': { schema: body } } };
  }
  return { path: ADMIN_API_PREFIX + operation.path.replace(/:([a-zA-Z]+)/g, '{$1}'), method: operation.method.toLowerCase(), operation: result };
}

function typedResponses(name: AdminOperationName, output: z.ZodType): Record<string, unknown> {
  if (output instanceof z.ZodVoid) return { 204: { description: 'Done; no content.' } };
  return {
    [CREATED.has(name) ? 201 : 200]: {
      description: CREATED.has(name) ? 'Created.' : 'OK.',
      content: { 'application/json': { schema: jsonSchema(output, 'output') } },
    },
  };
}

function rawResponses(output: { mediaType: string; schema: z.ZodType | null }, description: string, status: number): Record<string, unknown> {
  const schema = output.schema === null ? { type: 'string', format: 'binary' } : jsonSchema(output.schema, 'output');
  return { [status]: { description, content: { [output.mediaType]: { schema } } } };
}

export function buildOpenApiDocument(options: { version: string; serverUrl?: string }): Record<string, unknown> {
  const described = [
    ...(Object.entries(adminOperations) as Array<[AdminOperationName, (typeof adminOperations)[AdminOperationName]]>).map(([name, operation]) =>
      describeOperation(name, operation, { summary: name, needsAdminToken: true, responses: typedResponses(name, operation.output) }),
    ),
    ...(Object.entries(adminRawOperations) as Array<[AdminRawOperationName, (typeof adminRawOperations)[AdminRawOperationName]]>).map(
      ([name, operation]) => {
        const prose = RAW_PROSE[name];
        const body = 'body' in operation ? operation.body : undefined;
        const described = describeOperation(name, operation, {
          summary: prose.summary,
          description: prose.description,
          needsAdminToken: operation.needsAdminToken,
          responses: rawResponses(operation.output, prose.answer, body === undefined ? 200 : 201),
        });
        if (body !== undefined) described.operation.requestBody = { required: true, content: { [body]: { schema: { type: 'string', format: 'binary' } } } };
        return described;
      },
    ),
  ];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { path, method, operation } of described) paths[path] = { ...paths[path], [method]: operation };
  describeNdjsonImport(described.find((entry) => entry.operation.operationId === 'imports.start')?.operation);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Lore LRS admin API',
      version: options.version,
      description: 'Stores, API keys, the Statement Explorer, refusal logs, ingestion statistics, live events, backups, forwarding and service status.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (LRS_ADMIN_TOKEN or printed at first start).' } },
    },
  };
}

/**
 * POST /stores/{slug}/imports takes a file as well as the JSON of a pull: an NDJSON body, one
 * statement as stored per line (an export's format), read as it streams (docs/import.md).
 */
function describeNdjsonImport(operation: Record<string, unknown> | undefined): void {
  const body = operation?.requestBody as { content: Record<string, unknown> } | undefined;
  if (!operation || !body) return;
  operation.description =
    'As JSON: a pull from another LRS (endpoint, key, secret, optional since), run in the background; the answer is the job, before any statement is read. ' +
    'As application/x-ndjson: a file of statements, one per line, imported as it is read; the answer is the job once the file is read. ' +
    'Invalid statements, conflicts and bad lines are counted and the first ones listed with their line numbers; a file over the size limit is answered 413.';
  body.content['application/x-ndjson'] = { schema: { type: 'string', format: 'binary' } };
}
