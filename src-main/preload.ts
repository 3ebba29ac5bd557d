/**
 * The bridge between the sandboxed renderer and the main process. Runs sandboxed: it may only
 * require 'electron' (contextBridge, ipcRenderer), so it is bundled to one CommonJS file.
 * Listeners never receive Electron's IpcRendererEvent: it would hand the page `event.sender`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import { SERVICE_STATUS_CHANNEL } from './bridge-types';
import type { LoreBridge, ServiceStatus } from './bridge-types';

contextBridge.exposeInMainWorld('lore', {
  serviceStatus: () => ipcRenderer.invoke(SERVICE_STATUS_CHANNEL) as Promise<ServiceStatus>,
  onServiceStatus(listener) {
    const relay = (_event: IpcRendererEvent, status: ServiceStatus): void => listener(status);
    ipcRenderer.on(SERVICE_STATUS_CHANNEL, relay);
    return () => {
      ipcRenderer.removeListener(SERVICE_STATUS_CHANNEL, relay);
    };
  },
} satisfies LoreBridge);
