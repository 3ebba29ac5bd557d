/**
 * The admin API's OpenAPI 3.1 description, generated from the contract (`adminOperations`) with
 * zod's own JSON Schema output: the schemas the service validates with are the ones described.
 * Served at GET /admin/api/openapi.json.
 */
import { z } from 'zod';
import { BACKUPS_PATH, LIVE_EVENTS_PATH, OPENAPI_PATH, adminOperations, errorBodySchema, liveEventSchema, liveEventsQuerySchema } from './contract';
import type { AdminOperationName } from './contract';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

/** Operations that answer 201 (they create something); the others answer 200, or 204 without a body. */
const CREATED: ReadonlySet<AdminOperationName> = new Set(['stores.create', 'apiKeys.create', 'apiKeys.rotate']);

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

export function buildOpenApiDocument(options: { version: string; serverUrl?: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, operation] of Object.entries(adminOperations) as Array<[AdminOperationName, (typeof adminOperations)[AdminOperationName]]>) {
    const pathParams = [...operation.path.matchAll(/:([a-zA-Z]+)/g)].map((match) => match[1]!);
    const path = ADMIN_API_PREFIX + operation.path.replace(/:([a-zA-Z]+)/g, '{$1}');
    const input = jsonSchema(operation.input, 'input');
    const rest = Object.keys(input.properties ?? {}).filter((key) => !pathParams.includes(key));
    const described: Record<string, unknown> = {
      operationId: name,
      summary: name,
      tags: [name.split('.')[0]],
      security: [{ adminToken: [] }],
      parameters: [...parameters(input, pathParams, 'path'), ...(operation.method === 'GET' || operation.method === 'DELETE' ? parameters(input, rest, 'query') : [])],
      responses: {
        ...(operation.output instanceof z.ZodVoid
          ? { 204: { description: 'Done; no content.' } }
          : {
              [CREATED.has(name) ? 201 : 200]: {
                description: CREATED.has(name) ? 'Created.' : 'OK.',
                content: { 'application/json': { schema: jsonSchema(operation.output, 'output') } },
              },
            }),
        default: errorResponse,
      },
    };
    if ((operation.method === 'POST' || operation.method === 'PATCH') && rest.length > 0) {
      const required = (input.required ?? []).filter((key) => rest.includes(key));
      const body: JsonSchema = { ...input, properties: Object.fromEntries(rest.map((key) => [key, input.properties![key]!])) };
      if (required.length > 0) body.required = required;
      else delete body.required;
      described.requestBody = { required: required.length > 0, content: { 'application/json': { schema: body } } };
    }
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: described };
  }

  const eventsQuery = jsonSchema(liveEventsQuerySchema, 'input');
  paths[ADMIN_API_PREFIX + LIVE_EVENTS_PATH] = {
    get: {
      operationId: 'events.stream',
      summary: 'Live events (server-sent events)',
      description:
        'A text/event-stream of `event: statement` messages, one per statement accepted, voided or rejected, with the ' +
        'JSON below as data, and `event: refusal` messages, one per refused request logged; a comment line every 15 s. ' +
        'Read it with fetch: it needs the Authorization header.',
      tags: ['events'],
      security: [{ adminToken: [] }],
      parameters: parameters(eventsQuery, ['store'], 'query'),
      responses: {
        200: { description: 'The stream.', content: { 'text/event-stream': { schema: jsonSchema(liveEventSchema, 'output') } } },
        default: errorResponse,
      },
    },
  };

  paths[ADMIN_API_PREFIX + BACKUPS_PATH] = {
    post: {
      operationId: 'backups.download',
      summary: 'A backup of the whole database (a download)',
      description:
        'The whole database as an SQLite file, from a consistent point: every write acknowledged before the request is in it. ' +
        '`npm run restore` puts it back. Scheduled backups are written by the service itself (see `backups` in the status).',
      tags: ['backups'],
      security: [{ adminToken: [] }],
      responses: {
        200: { description: 'The SQLite file.', content: { 'application/vnd.sqlite3': { schema: { type: 'string', format: 'binary' } } } },
        default: errorResponse,
      },
    },
  };
  paths[ADMIN_API_PREFIX + OPENAPI_PATH] = {
    get: {
      operationId: 'openapi.get',
      summary: 'This description',
      description: 'No token needed: it holds no data.',
      tags: ['openapi'],
      responses: { 200: { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Lore LRS admin API',
      version: options.version,
      description: 'Stores, API keys, the Statement Explorer, ingestion statistics, live events and service status.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (LRS_ADMIN_TOKEN or printed at first start).' } },
    },
  };
}
