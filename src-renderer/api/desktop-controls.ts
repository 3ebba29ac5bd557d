/**
 * The desktop app's own operations (local service start/stop/restart and settings, connection
 * profiles, preferences), present only in the desktop app. Features reach them through this
 * context, never through the bridge.
 */
import { createContext, useContext } from 'react';
import type { DesktopInput, DesktopOperationName } from '../../src-main/desktop-contract';
import type { DesktopState } from '../../src-main/bridge-types';

export type { DesktopState };

export interface DesktopControls {
  /** Rejects with an AdminError (its `field` names the input at fault). */
  call<N extends DesktopOperationName>(name: N, input: DesktopInput<N>): Promise<DesktopState>;
}

export const DesktopControlsContext = createContext<DesktopControls | null>(null);

/** The desktop controls, or null in the web console. */
export function useDesktopControls(): DesktopControls | null {
  return useContext(DesktopControlsContext);
}
