/**
 * Saving a file the admin API hands out (an attempt's report, an export) where the user chooses:
 * fetched from the active connection with its admin token (which never enters the renderer), the
 * name the service offers proposed in the save dialog, the body streamed to disk as it arrives
 * (an export of a large Store never sits in memory). Pure apart from the injected fetch, dialog
 * and file writer, so every outcome is tested without Electron.
 */
import { z } from 'zod';
import { dispositionFileName } from '../src-server/admin/content-disposition';
import { exportQuerySchema, slugSchema } from '../src-server/admin/contract';
import { adminApiUrl, desktopClientHeaders, zodIssueToError } from './admin-forwarder';
import type { AdminTarget, FetchLike, TargetResolution } from './admin-forwarder';
import type { AdminBridgeError, AdminBridgeResult } from './bridge-types';

/** How long the answer may take to start: an export streams on after its headers. */
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export interface DownloadSaverDeps {
  fetch: FetchLike;
  /** Asks the user where to save; undefined when they cancel. */
  choosePath: (suggestedName: string) => Promise<string | undefined>;
  writeFile: (path: string, body: ReadableStream<Uint8Array>) => Promise<void>;
}

/** The service's error answer, or one naming the HTTP status. */
export async function errorOf(response: Response): Promise<AdminBridgeError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: AdminBridgeError };
    if (body.error && typeof body.error.message === 'string') return body.error;
  } catch {
    // not JSON: described below
  }
  return { status: response.status, code: 'http_error', message: `The service answered HTTP ${response.status}.` };
}

/** GETs `path` below /admin/api and saves it; a cancelled dialog resolves code `canceled`. */
export async function saveAdminDownload(deps: DownloadSaverDeps, target: AdminTarget, path: string, fallbackName: string): Promise<AdminBridgeResult<string>> {
  let response: Response;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('no answer in time')), DOWNLOAD_TIMEOUT_MS);
  try {
    response = await deps.fetch(adminApiUrl(target.url, path), {
      headers: { authorization: `Bearer ${target.token}`, ...desktopClientHeaders() },
      signal: controller.signal,
    });
  } catch (error) {
    return { ok: false, error: { status: 0, code: 'unreachable', message: `The service at ${target.url} cannot be reached (${String(error)}).` } };
  } finally {
    // Only the wait for the answer is bounded: a long export streams on.
    clearTimeout(timer);
  }
  if (!response.ok || !response.body) return { ok: false, error: await errorOf(response) };
  const file = await deps.choosePath(dispositionFileName(response.headers.get('content-disposition')) ?? fallbackName);
  if (file === undefined) {
    await response.body.cancel();
    return { ok: false, error: { status: 0, code: 'canceled', message: 'Not saved.' } };
  }
  try {
    await deps.writeFile(file, response.body);
  } catch (error) {
    return { ok: false, error: { status: 0, code: 'write_failed', message: `Could not write ${file}: ${error instanceof Error ? error.message : String(error)}.` } };
  }
  return { ok: true, value: file };
}

const exportRequestSchema = z.object({ slug: slugSchema, query: z.string().max(8_000) });

/**
 * "Export" in the desktop app: the Explorer's filter (`query`, the export's query string) read as the
 * admin contract reads it before anything is fetched, then the file saved where the user chooses.
 */
export async function saveExport(
  deps: DownloadSaverDeps & { resolveTarget: () => TargetResolution | Promise<TargetResolution> },
  request: unknown,
): Promise<AdminBridgeResult<string>> {
  const parsed = exportRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };
  const params = new URLSearchParams(parsed.data.query);
  const filter = exportQuerySchema.safeParse(Object.fromEntries(params));
  if (!filter.success) return { ok: false, error: zodIssueToError(filter.error, 400, 'invalid_parameter') };
  const resolution = await deps.resolveTarget();
  if (!resolution.ok) return resolution;
  const format = filter.data.format;
  return saveAdminDownload(deps, resolution.target, `/stores/${encodeURIComponent(parsed.data.slug)}/export?${params.toString()}`, `statements.${format}`);
}
