import type { LoreBridge } from '../src-main/bridge-types';

declare global {
  interface Window {
    /** Present in the desktop app (exposed by src-main/preload.ts); absent in the web console. */
    lore?: LoreBridge;
  }
}
