/**
 * The AdminClient of the desktop app: every call goes through the preload bridge to the main
 * process, which forwards it to the active connection (local service or remote deployment) with
 * the same `buildAdminRequest`. The admin token never enters the renderer.
 */
import type { LoreBridge } from '../../src-main/bridge-types';
import type { AdminClient, AdminInput, BackupDownload, AdminOperationName, AdminOutput, StoreChangeView, ImportJobView, PackageView, SubscribeOptions, AdminErrorFields } from './admin-client';
import { AdminError, wantsStore } from './admin-client';

export function createIpcAdminClient(bridge: LoreBridge): AdminClient {
  return {
    async call<N extends AdminOperationName>(name: N, input: AdminInput<N>): Promise<AdminOutput<N>> {
      const result = await bridge.admin(name, input);
      if (!result.ok) throw new AdminError(result.error);
      return result.value;
    },
    subscribe(listener: (event: StoreChangeView) => void, options: SubscribeOptions = {}) {
      // The main process keeps one stream per connection and relays it, and says when it is up.
      const onConnectionChange = options.onConnectionChange;
      let active = true;
      let pushed = false; // a push is newer than the answer to the question asked before it
      const unsubscribeStream = onConnectionChange
        ? bridge.onAdminStream((connected) => {
            pushed = true;
            onConnectionChange(connected);
          })
        : () => {};
      if (onConnectionChange) {
        void bridge.adminStream().then(
          (connected) => active && !pushed && onConnectionChange(connected),
          () => undefined,
        );
      }
      const unsubscribeStatements = bridge.onAdminEvent((event) => {
        if (!wantsStore(options, event.store)) return;
        listener(event);
      });
      const onRefusal = options.onRefusal;
      const unsubscribeRefusals = onRefusal
        ? bridge.onAdminRefusal((event) => {
            if (wantsStore(options, event.store)) onRefusal(event);
          })
        : () => {};
      return () => {
        active = false;
        unsubscribeStatements();
        unsubscribeRefusals();
        unsubscribeStream();
      };
    },
    connection: () => bridge.connection(),
    async downloadBackup(): Promise<BackupDownload> {
      const result = await bridge.saveBackup();
      if (result.ok) return { saved: true, name: result.path };
      if (result.error.code === 'canceled') return { saved: false };
      throw new AdminError(result.error);
    },
    async importPackage(slug: string, zip: Blob): Promise<PackageView> {
      const result = await bridge.importPackage(slug, await zip.arrayBuffer());
      if (!result.ok) throw new AdminError(result.error);
      return result.value as PackageView;
    },
    async importStatementsFile(slug: string, file: Blob, fileName: string): Promise<ImportJobView> {
      const result = await bridge.importStatementsFile(slug, await file.arrayBuffer(), fileName);
      if (!result.ok) throw new AdminError(result.error);
      return result.value as ImportJobView;
    },
    async openLaunch(url: string): Promise<void> {
      const result = await bridge.openLaunch(url);
      if (!result.ok) throw new AdminError(result.error);
    },
    async saveAttemptReport(slug: string, registration: string, format: 'html' | 'json'): Promise<BackupDownload> {
      return savedAs(await bridge.saveAttemptReport(slug, registration, format));
    },
    async saveExport(slug: string, query: string): Promise<BackupDownload> {
      return savedAs(await bridge.saveExport(slug, query));
    },
  };
}

/** What a save through the desktop bridge did: the path, cancelled, or the error thrown. */
function savedAs(result: { ok: true; value: string } | { ok: false; error: AdminErrorFields }): BackupDownload {
  if (result.ok) return { saved: true, name: result.value };
  if (result.error.code === 'canceled') return { saved: false };
  throw new AdminError(result.error);
}
