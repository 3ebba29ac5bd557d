/**
 * Importing statements in the desktop app (docs/import.md): the NDJSON file the console picked is
 * sent to the active connection (POST /admin/api/stores/:slug/imports as application/x-ndjson) with
 * the main process's admin token, which never enters the renderer. Pure apart from the injected
 * fetch; index.ts attaches it to IPC.
 */
import { z } from 'zod';
import { slugSchema } from '../src-server/admin/contract';
import { zodIssueToError } from './admin-forwarder';
import type { AdminBridgeResult } from './bridge-types';
import { sendFile, type TestBenchBridgeDeps } from './test-bench-bridge';

const importFileRequestSchema = z.object({
  slug: slugSchema,
  bytes: z.instanceof(Uint8Array).or(z.instanceof(ArrayBuffer)),
  fileName: z.string().max(200),
});

/** Sends the file; resolves with the import (its counts) once the service has read it. */
export async function importStatementsFile(deps: TestBenchBridgeDeps, request: unknown): Promise<AdminBridgeResult<unknown>> {
  const parsed = importFileRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };
  const { slug, bytes, fileName } = parsed.data;
  return sendFile(deps, `/stores/${encodeURIComponent(slug)}/imports?fileName=${encodeURIComponent(fileName)}`, 'application/x-ndjson', bytes);
}
