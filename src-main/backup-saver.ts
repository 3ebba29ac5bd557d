/**
 * "Download backup" in the desktop app: asks the active connection for a backup
 * (POST /admin/api/backups with its admin token), asks the user where to save it and streams the
 * SQLite file there. Pure apart from the injected fetch, save dialog and file writer, so every
 * outcome is tested without Electron; index.ts passes `dialog.showSaveDialog` and the file system.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { dispositionFileName } from '../src-server/admin/content-disposition';
import { BACKUPS_PATH, errorBodySchema } from '../src-server/admin/contract';
import { adminApiUrl, desktopClientHeaders } from './admin-forwarder';
import type { FetchLike, TargetResolution } from './admin-forwarder';
import type { SaveBackupResult } from './bridge-types';

const BACKUP_TIMEOUT_MS = 10 * 60_000;

export interface BackupSaverDeps {
  resolveTarget: () => TargetResolution | Promise<TargetResolution>;
  fetch: FetchLike;
  /** Asks the user where to save; undefined when they cancel. */
  choosePath: (suggestedName: string) => Promise<string | undefined>;
  /** Writes the body to `path` (default: to `path.part`, renamed into place when complete). */
  writeFile?: (path: string, body: ReadableStream<Uint8Array>) => Promise<void>;
  timeoutMs?: number;
}

export { dispositionFileName };

function defaultBackupName(now: Date = new Date()): string {
  return `lore-backup-${now.toISOString().replace(/[:.]/g, '-')}.sqlite`;
}

/** Streams `body` to `path.part`, then renames it: a cut-off download never looks complete. */
export async function writeStreamToFile(path: string, body: ReadableStream<Uint8Array>): Promise<void> {
  const partial = `${path}.part`;
  const out = createWriteStream(partial);
  try {
    await pipeline(Readable.fromWeb(body as WebReadableStream<Uint8Array>), out);
    await rename(partial, path);
  } catch (error) {
    // A stream that fails at once can reject the pipeline before the file is even open; removing
    // it before the stream has closed would race its creation and leave the partial file behind.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    await rm(partial, { force: true });
    throw error;
  }
}

function message(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'no answer in time';
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && cause.message ? cause.message : error.message;
  }
  return String(error);
}

export async function saveBackup(deps: BackupSaverDeps): Promise<SaveBackupResult> {
  const resolution = await deps.resolveTarget();
  if (!resolution.ok) return resolution;
  const { url, token } = resolution.target;

  let response: Response;
  try {
    response = await deps.fetch(adminApiUrl(url, BACKUPS_PATH), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, ...desktopClientHeaders(), accept: 'application/vnd.sqlite3' },
      signal: AbortSignal.timeout(deps.timeoutMs ?? BACKUP_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    return { ok: false, error: { status: 0, code: 'unreachable', message: `Could not reach the Lore service at ${url}: ${message(error)}.` } };
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    try {
      const parsed = errorBodySchema.safeParse(JSON.parse(text));
      if (parsed.success) return { ok: false, error: { status: parsed.data.error.status, code: parsed.data.error.code, message: parsed.data.error.message } };
    } catch {
      // not a Lore error body
    }
    return { ok: false, error: { status: response.status, code: 'http_error', message: `The service answered HTTP ${response.status} to the backup request.` } };
  }
  if (!response.body) return { ok: false, error: { status: 502, code: 'invalid_response', message: 'The service sent an empty backup.' } };

  const path = await deps.choosePath(dispositionFileName(response.headers.get('content-disposition')) ?? defaultBackupName());
  if (!path) {
    await response.body.cancel().catch(() => undefined);
    return { ok: false, error: { status: 0, code: 'canceled', message: 'The backup was not saved.' } };
  }
  try {
    await (deps.writeFile ?? writeStreamToFile)(path, response.body);
  } catch (error) {
    return { ok: false, error: { status: 0, code: 'write_failed', message: `The backup could not be written to ${path}: ${message(error)}.` } };
  }
  return { ok: true, path };
}
