import type { LoreBridge } from '../../src-main/bridge-types';
import type { DesktopInput, DesktopOperationName } from '../../src-main/desktop-contract';
import { AdminError } from './admin-client';
import type { DesktopControls, DesktopState } from './desktop-controls';

export function createIpcDesktopControls(bridge: LoreBridge): DesktopControls {
  return {
    async call<N extends DesktopOperationName>(name: N, input: DesktopInput<N>): Promise<DesktopState> {
      const result = await bridge.desktop(name, input);
      if (!result.ok) throw new AdminError(result.error);
      return result.value;
    },
  };
}
