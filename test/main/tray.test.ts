import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServiceStatus } from '../../src-main/bridge-types';

const fakes = vi.hoisted(() => {
  const state = {
    trays: [] as { icon: unknown; tooltip?: string; menu?: { template: unknown[] }; handlers: Record<string, () => void>; destroyed: boolean }[],
    iconPaths: [] as string[],
  };
  return state;
});

vi.mock('electron', () => ({
  nativeImage: {
    createFromPath: (path: string) => {
      fakes.iconPaths.push(path);
      return { resize: (size: unknown) => ({ path, size }) };
    },
  },
  Tray: class {
    record: (typeof fakes.trays)[number];
    constructor(icon: unknown) {
      this.record = { icon, handlers: {}, destroyed: false };
      fakes.trays.push(this.record);
    }
    on(event: string, handler: () => void) {
      this.record.handlers[event] = handler;
    }
    setToolTip(text: string) {
      this.record.tooltip = text;
    }
    setContextMenu(menu: { template: unknown[] }) {
      this.record.menu = menu;
    }
    destroy() {
      this.record.destroyed = true;
    }
  },
  Menu: { buildFromTemplate: (template: unknown[]) => ({ template }) },
}));

const { createTray, trayModel } = await import('../../src-main/tray');

const LOCAL = { kind: 'local', url: 'http://127.0.0.1:8411', label: 'Local service' } as const;
const running: ServiceStatus = { state: 'running', restarts: 0, url: 'http://127.0.0.1:8411' };

function enabled(model: ReturnType<typeof trayModel>) {
  return Object.fromEntries(model.items.flatMap((i) => (i.kind === 'action' ? [[i.action, i.enabled]] : [])));
}

beforeEach(() => {
  fakes.trays.length = 0;
  fakes.iconPaths.length = 0;
});

describe('the tray menu', () => {
  it('says the local service runs, and where, and offers stop and restart but not start', () => {
    const model = trayModel({ status: running, connection: LOCAL, keepServiceRunning: false });
    expect(model.tooltip).toBe('Lore LRS — Local service running at http://127.0.0.1:8411');
    expect(model.items[0]).toEqual({ kind: 'label', label: 'Local service running at http://127.0.0.1:8411' });
    expect(enabled(model)).toEqual({ open: true, start: false, stop: true, restart: true, quit: true });
  });

  it.each([
    [{ state: 'stopped', restarts: 0 }, 'Local service stopped', { start: true, stop: false, restart: false }],
    [{ state: 'starting', restarts: 0 }, 'Local service starting…', { start: false, stop: true, restart: true }],
    [{ state: 'restarting', restarts: 1 }, 'Local service restarting…', { start: false, stop: true, restart: true }],
    [{ state: 'failed', restarts: 5 }, 'Local service failed', { start: true, stop: false, restart: true }],
  ] as const)('shows %o as "%s"', (status, label, actions) => {
    const model = trayModel({ status, connection: LOCAL, keepServiceRunning: false });
    expect(model.items[0]).toEqual({ kind: 'label', label });
    expect(enabled(model)).toMatchObject(actions);
  });

  it('shows the keep-running choice as a checkbox, and which remote the console manages', () => {
    const model = trayModel({
      status: running,
      connection: { kind: 'remote', url: 'https://lrs.acme.example', label: 'Acme' },
      keepServiceRunning: true,
    });
    expect(model.items).toContainEqual({ kind: 'label', label: 'Console managing: Acme (https://lrs.acme.example)' });
    expect(model.items).toContainEqual({
      kind: 'checkbox',
      action: 'toggle-keep-running',
      label: 'Keep the service running when the window is closed',
      checked: true,
    });
  });

  it('renders the model into the tray and calls back with the chosen action', () => {
    const actions: string[] = [];
    const tray = createTray('/opt/lore/resources/icon.png', (a) => actions.push(a));
    tray.update(trayModel({ status: running, connection: LOCAL, keepServiceRunning: false }));
    const [record] = fakes.trays;
    expect(fakes.iconPaths).toEqual(['/opt/lore/resources/icon.png']);
    expect(record?.tooltip).toMatch(/running/);
    const template = record?.menu?.template as { label?: string; click?: () => void; type?: string; enabled?: boolean }[];
    template.find((i) => i.label === 'Quit Lore LRS')?.click?.();
    template.find((i) => i.type === 'checkbox')?.click?.();
    record?.handlers['click']?.();
    expect(actions).toEqual(['quit', 'toggle-keep-running', 'open']);
    expect(template.find((i) => i.label === 'Start local service')?.enabled).toBe(false);
    tray.destroy();
    expect(record?.destroyed).toBe(true);
  });
});
