/**
 * The tray icon: whether the local service runs, and the few actions that matter when the window
 * is closed (open the console, start or stop the service, keep it running, quit). The menu is a
 * pure model so that what it shows for each state is tested; createTray only renders it.
 */
import { Menu, Tray, nativeImage } from 'electron';
import type { MenuItemConstructorOptions } from 'electron';
import type { ConnectionDescription, ServiceStatus } from './bridge-types';

export type TrayAction = 'open' | 'start' | 'stop' | 'restart' | 'toggle-keep-running' | 'quit';

type TrayItem =
  | { kind: 'label'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string; enabled: boolean }
  | { kind: 'checkbox'; action: TrayAction; label: string; checked: boolean };

export interface TrayModel {
  tooltip: string;
  items: TrayItem[];
}

function serviceStateLabel(status: ServiceStatus): string {
  switch (status.state) {
    case 'running':
      return `Local service running at ${status.url ?? 'an unknown address'}`;
    case 'starting':
      return 'Local service starting…';
    case 'restarting':
      return 'Local service restarting…';
    case 'failed':
      return 'Local service failed';
    case 'stopped':
      return 'Local service stopped';
  }
}

export function trayModel(input: {
  status: ServiceStatus;
  connection: ConnectionDescription;
  keepServiceRunning: boolean;
}): TrayModel {
  const { status, connection, keepServiceRunning } = input;
  const live = status.state === 'running' || status.state === 'starting' || status.state === 'restarting';
  const stateLabel = serviceStateLabel(status);
  const managing = connection.kind === 'local' ? null : `Console managing: ${connection.label} (${connection.url})`;
  return {
    tooltip: `Lore LRS — ${stateLabel}`,
    items: [
      { kind: 'label', label: stateLabel },
      ...(managing ? [{ kind: 'label', label: managing } as const] : []),
      { kind: 'separator' },
      { kind: 'action', action: 'open', label: 'Open console', enabled: true },
      { kind: 'action', action: 'start', label: 'Start local service', enabled: !live },
      { kind: 'action', action: 'stop', label: 'Stop local service', enabled: live },
      { kind: 'action', action: 'restart', label: 'Restart local service', enabled: live || status.state === 'failed' },
      { kind: 'separator' },
      {
        kind: 'checkbox',
        action: 'toggle-keep-running',
        label: 'Keep the service running when the window is closed',
        checked: keepServiceRunning,
      },
      { kind: 'separator' },
      { kind: 'action', action: 'quit', label: 'Quit Lore LRS', enabled: true },
    ],
  };
}

function menuTemplate(model: TrayModel, onAction: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return model.items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'label':
        return { label: item.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => onAction(item.action) };
      case 'checkbox':
        return { label: item.label, type: 'checkbox', checked: item.checked, click: () => onAction(item.action) };
    }
  });
}

export interface LoreTray {
  update(model: TrayModel): void;
  destroy(): void;
}

export function createTray(iconPath: string, onAction: (action: TrayAction) => void): LoreTray {
  // 16 px on Windows and Linux panels, 22 px logical on macOS menu bars; the 512 px icon resized.
  const icon = nativeImage.createFromPath(iconPath).resize({ width: 16, height: 16 });
  const tray = new Tray(icon);
  // Linux panels show the menu on click anyway; elsewhere a click opens the console.
  tray.on('click', () => onAction('open'));
  return {
    update(model) {
      tray.setToolTip(model.tooltip);
      tray.setContextMenu(Menu.buildFromTemplate(menuTemplate(model, onAction)));
    },
    destroy: () => tray.destroy(),
  };
}
