/**
 * The bridge between the sandboxed renderer and the main process. Runs sandboxed: it may only
 * require 'electron' (contextBridge, ipcRenderer), so it is bundled to one CommonJS file.
 * Listeners never receive Electron's IpcRendererEvent: it would hand the page `event.sender`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import {
  ADMIN_CHANNEL,
  ADMIN_EVENT_CHANNEL,
  ADMIN_REFUSAL_CHANNEL,
  ADMIN_STREAM_CHANNEL,
  BACKUP_CHANNEL,
  CONNECTION_CHANNEL,
  DESKTOP_CHANNEL,
  LAUNCH_CHANNEL,
  PACKAGE_CHANNEL,
  IMPORT_FILE_CHANNEL,
  REPORT_CHANNEL,
  EXPORT_CHANNEL,
  SERVICE_STATUS_CHANNEL,
} from './bridge-types';
import type { LoreBridge } from './bridge-types';

/** Subscribes `listener` to pushes on `channel`, passing the payload only. */
function subscribe<T>(channel: string, listener: (payload: T) => void): () => void {
  const relay = (_event: IpcRendererEvent, payload: T): void => listener(payload);
  ipcRenderer.on(channel, relay);
  return () => {
    ipcRenderer.removeListener(channel, relay);
  };
}

const bridge: LoreBridge = {
  serviceStatus: () => ipcRenderer.invoke(SERVICE_STATUS_CHANNEL),
  onServiceStatus: (listener) => subscribe(SERVICE_STATUS_CHANNEL, listener),
  admin: (name, input) => ipcRenderer.invoke(ADMIN_CHANNEL, { name, input }),
  onAdminEvent: (listener) => subscribe(ADMIN_EVENT_CHANNEL, listener),
  onAdminRefusal: (listener) => subscribe(ADMIN_REFUSAL_CHANNEL, listener),
  adminStream: () => ipcRenderer.invoke(ADMIN_STREAM_CHANNEL),
  onAdminStream: (listener) => subscribe(ADMIN_STREAM_CHANNEL, listener),
  connection: () => ipcRenderer.invoke(CONNECTION_CHANNEL),
  onConnection: (listener) => subscribe(CONNECTION_CHANNEL, listener),
  desktop: (name, input) => ipcRenderer.invoke(DESKTOP_CHANNEL, { name, input }),
  saveBackup: () => ipcRenderer.invoke(BACKUP_CHANNEL),
  importPackage: (slug, bytes) => ipcRenderer.invoke(PACKAGE_CHANNEL, { slug, bytes }),
  importStatementsFile: (slug, bytes, fileName) => ipcRenderer.invoke(IMPORT_FILE_CHANNEL, { slug, bytes, fileName }),
  openLaunch: (url) => ipcRenderer.invoke(LAUNCH_CHANNEL, url),
  saveAttemptReport: (slug, registration, format) => ipcRenderer.invoke(REPORT_CHANNEL, { slug, registration, format }),
  saveExport: (slug, query) => ipcRenderer.invoke(EXPORT_CHANNEL, { slug, query }),
};

contextBridge.exposeInMainWorld('lore', bridge satisfies LoreBridge);
