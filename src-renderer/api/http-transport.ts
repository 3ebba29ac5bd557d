/**
 * The AdminClient of the web console (/admin/): HTTP to the page's own origin with the admin
 * token the user signed in with. Requests are built by the contract's `buildAdminRequest`, the
 * same function the desktop main process forwards with, so paths are written once.
 */
import { dispositionFileName } from '../../src-server/admin/content-disposition';
import { BACKUPS_PATH, buildAdminRequest } from '../../src-server/admin/contract';
import type { AdminClient, AdminInput, BackupDownload, AdminOperationName, AdminOutput, ConnectionInfo, ImportJobView, PackageView, RefusalEventView, StoreChangeView, SubscribeOptions } from './admin-client';
import { AdminError, wantsStore } from './admin-client';
import { parseErrorBody } from './error-body';
import { createSseParser, reconnectDelayMs } from './sse';

export interface HttpClientOptions {
  /** Origin of the service, e.g. http://127.0.0.1:8411 (no trailing slash). */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  /** Called when the service refuses the token (401): the console goes back to sign-in. */
  onUnauthorized?: () => void;
  /** Hands a downloaded file to the user (the web console: save-download.ts); without it there are no downloads. */
  saveFile?: (blob: Blob, fileName: string) => void;
  /** Opens a URL in a new tab (default window.open with noopener); tests pass their own. */
  openWindow?: (url: string) => unknown;
}

export function createHttpAdminClient(options: HttpClientOptions): AdminClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const authorization = `Bearer ${options.token}`;

  /**
   * One admin request: the service's answer when it is a success; otherwise an AdminError (status 0
   * when the service cannot be reached; a 401 also sends the console back to sign-in).
   */
  async function request(path: string, init: { method: string; headers?: Record<string, string>; body?: string | Blob }): Promise<Response> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}/admin/api${path}`, { ...init, headers: { authorization, ...init.headers } });
    } catch (error) {
      throw new AdminError({ status: 0, code: 'unreachable', message: `The service at ${baseUrl} cannot be reached (${(error as Error).message}).` });
    }
    if (!response.ok) {
      if (response.status === 401) options.onUnauthorized?.();
      throw parseErrorBody(response.status, await response.text());
    }
    return response;
  }

  async function call<N extends AdminOperationName>(name: N, input: AdminInput<N>): Promise<AdminOutput<N>> {
    const built = buildAdminRequest(name, input);
    const response = await request(built.path, {
      method: built.method,
      ...(built.body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(built.body) } : {}),
    });
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as AdminOutput<N>;
  }

  function subscribe(listener: (change: StoreChangeView) => void, subscribeOptions: SubscribeOptions = {}): () => void {
    const controller = new AbortController();
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The last change read: a stream that comes back is told what changed since (Last-Event-ID).
    let lastEventId: string | undefined;
    const query = subscribeOptions.store ? `?store=${encodeURIComponent(subscribeOptions.store)}` : '';

    // EventSource cannot send an Authorization header, so the stream is read with fetch.
    const connect = async (): Promise<void> => {
      try {
        const response = await doFetch(`${baseUrl}/admin/api/events${query}`, {
          headers: { authorization, accept: 'text/event-stream', ...(lastEventId !== undefined ? { 'last-event-id': lastEventId } : {}) },
          signal: controller.signal,
        });
        if (response.status === 401) {
          options.onUnauthorized?.();
          return;
        }
        if (!response.ok || !response.body) throw new Error(`events answered ${response.status}`);
        attempt = 0;
        subscribeOptions.onConnectionChange?.(true);
        const parser = createSseParser();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const message of parser.push(value)) {
            if (message.event === 'refusal') {
              const refusal = JSON.parse(message.data) as RefusalEventView;
              if (wantsStore(subscribeOptions, refusal.store)) subscribeOptions.onRefusal?.(refusal);
              continue;
            }
            if (message.event !== 'change') continue;
            if (message.id !== undefined) lastEventId = message.id;
            const change = JSON.parse(message.data) as StoreChangeView;
            if (!wantsStore(subscribeOptions, change.store)) continue;
            listener(change);
          }
        }
      } catch {
        // dropped or refused: reconnect below unless unsubscribed
      }
      if (controller.signal.aborted) return;
      subscribeOptions.onConnectionChange?.(false);
      timer = setTimeout(() => void connect(), reconnectDelayMs(attempt++));
    };
    void connect();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }

  /** Fetches an admin file and hands it to the browser's download, named as the service names it. */
  async function download(path: string, init: { method: 'GET' | 'POST'; accept: string }, fallbackName: string): Promise<BackupDownload> {
    const saveFile = options.saveFile;
    if (!saveFile) throw new AdminError({ status: 0, code: 'unsupported', message: 'This console cannot save downloads.' });
    const response = await request(path, { method: init.method, headers: { accept: init.accept } });
    const name = dispositionFileName(response.headers.get('content-disposition')) ?? fallbackName;
    saveFile(await response.blob(), name);
    return { saved: true, name };
  }

  function downloadBackup(): Promise<BackupDownload> {
    return download(BACKUPS_PATH, { method: 'POST', accept: 'application/vnd.sqlite3' }, `lore-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite`);
  }

  function saveAttemptReport(slug: string, registration: string, format: 'html' | 'json'): Promise<BackupDownload> {
    const path = `/stores/${encodeURIComponent(slug)}/attempts/${encodeURIComponent(registration)}/report?format=${format}`;
    return download(path, { method: 'GET', accept: format === 'html' ? 'text/html' : 'application/json' }, `test-bench-report.${format}`);
  }

  function saveExport(slug: string, query: string): Promise<BackupDownload> {
    const format = new URLSearchParams(query).get('format') ?? 'ndjson';
    return download(`/stores/${encodeURIComponent(slug)}/export?${query}`, { method: 'GET', accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson' }, `${slug}-statements.${format}`);
  }

  async function importPackage(slug: string, zip: Blob): Promise<PackageView> {
    const response = await request(`/stores/${encodeURIComponent(slug)}/packages`, { method: 'POST', headers: { 'content-type': 'application/zip' }, body: zip });
    return (await response.json()) as PackageView;
  }

  async function importStatementsFile(slug: string, file: Blob, fileName: string): Promise<ImportJobView> {
    const path = `/stores/${encodeURIComponent(slug)}/imports?fileName=${encodeURIComponent(fileName)}`;
    const response = await request(path, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: file });
    return (await response.json()) as ImportJobView;
  }

  async function openLaunch(url: string): Promise<void> {
    // A tab of its own, with no opener: the course cannot reach back into the console's page.
    const openTab = (href: string) => (globalThis as unknown as { open: (url: string, target: string, features: string) => unknown }).open(href, '_blank', 'noopener');
    (options.openWindow ?? openTab)(url);
  }

  const info: ConnectionInfo = { kind: 'web', url: baseUrl, label: new URL(baseUrl).host };
  return { call, subscribe, connection: async () => info, downloadBackup, importPackage, importStatementsFile, openLaunch, saveAttemptReport, saveExport };
}
