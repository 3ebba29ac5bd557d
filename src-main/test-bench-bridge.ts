/**
 * The Test Bench in the desktop app: a package the console picked is sent to the active
 * connection (POST /admin/api/stores/:slug/packages, with its admin token, which never enters the
 * renderer), and a launch URL is allowed to open in a window of its own only when the active
 * connection's service serves it. Pure apart from the injected fetch, so it is tested without
 * Electron; index.ts attaches it to IPC and opens the window (window.ts).
 */
import { z } from 'zod';
import { slugSchema } from '../src-server/admin/contract';
import { adminApiUrl, desktopClientHeaders, zodIssueToError } from './admin-forwarder';
import type { FetchLike, TargetResolution } from './admin-forwarder';
import type { AdminBridgeResult } from './bridge-types';
import { errorOf, saveAdminDownload } from './download-saver';
import type { DownloadSaverDeps } from './download-saver';

const IMPORT_TIMEOUT_MS = 10 * 60_000;

const importRequestSchema = z.object({ slug: slugSchema, bytes: z.instanceof(Uint8Array).or(z.instanceof(ArrayBuffer)) });

export interface TestBenchBridgeDeps {
  resolveTarget: () => TargetResolution | Promise<TargetResolution>;
  fetch: FetchLike;
}

/** Sends the zip the renderer read to the active connection; resolves with the package as listed. */
export async function importPackage(deps: TestBenchBridgeDeps, request: unknown): Promise<AdminBridgeResult<unknown>> {
  const parsed = importRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };
  return sendFile(deps, `/stores/${encodeURIComponent(parsed.data.slug)}/packages`, 'application/zip', parsed.data.bytes);
}

/**
 * POSTs a file the renderer read to an admin path of the active connection, with the main
 * process's admin token; resolves with the JSON answer, or the service's refusal in its own words.
 */
export async function sendFile(deps: TestBenchBridgeDeps, path: string, contentType: string, data: Uint8Array | ArrayBuffer): Promise<AdminBridgeResult<unknown>> {
  const resolution = await deps.resolveTarget();
  if (!resolution.ok) return resolution;
  const { url, token } = resolution.target;
  const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  let response: Response;
  try {
    response = await deps.fetch(adminApiUrl(url, path), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...desktopClientHeaders(), 'content-type': contentType, accept: 'application/json' },
      body: bytes,
      signal: AbortSignal.timeout(IMPORT_TIMEOUT_MS),
    });
  } catch (error) {
    return { ok: false, error: { status: 0, code: 'unreachable', message: `The service at ${url} cannot be reached (${String(error)}).` } };
  }
  if (!response.ok) return { ok: false, error: await errorOf(response) };
  return { ok: true, value: (await response.json()) as unknown };
}

const reportRequestSchema = z.object({ slug: slugSchema, registration: z.string().regex(/^[0-9a-fA-F-]{1,64}$/), format: z.enum(['html', 'json']) });

/**
 * Saves an attempt's report (GET …/attempts/:registration/report) where the user chooses. A
 * cancelled dialog resolves `{ok: false}` with code `canceled`, as a backup's does.
 */
export async function saveAttemptReport(
  deps: TestBenchBridgeDeps & DownloadSaverDeps,
  request: unknown,
): Promise<AdminBridgeResult<string>> {
  const parsed = reportRequestSchema.safeParse(request);
  if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };
  const resolution = await deps.resolveTarget();
  if (!resolution.ok) return resolution;
  const { slug, registration, format } = parsed.data;
  return saveAdminDownload(deps, resolution.target, `/stores/${encodeURIComponent(slug)}/attempts/${encodeURIComponent(registration)}/report?format=${format}`, `test-bench-report.${format}`);
}

/**
 * Whether `launchUrl` may open in a launch window: http(s) on the active connection's own origin
 * (where the service serves packages), no credentials in it. Anything else is refused: a window
 * of the app never shows a page the service did not serve.
 */
export function isLaunchUrlAllowed(launchUrl: unknown, serviceUrl: string): launchUrl is string {
  if (typeof launchUrl !== 'string') return false;
  try {
    const target = new URL(launchUrl);
    const service = new URL(serviceUrl);
    return (target.protocol === 'http:' || target.protocol === 'https:') && target.origin === service.origin && target.username === '' && target.password === '';
  } catch {
    return false;
  }
}
