/**
 * The service entry the desktop app runs in an Electron utility process (or any parent that forks
 * it with an IPC channel). Same configuration as the headless entry; it tells its parent when it
 * listens and stops gracefully when asked (`{type: 'shutdown'}`) or on SIGTERM.
 *
 * Messages to the parent: `{type: 'ready', url}`, `{type: 'failed', message}`.
 */
import { ConfigError, readConfig } from './config';
import { startService, type RunningService } from './service';

interface ParentPort {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** Electron's utility process has `process.parentPort`; a Node fork has `process.send`. */
function parentChannel(): { send(message: unknown): void; onMessage(listener: (message: unknown) => void): void } {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) return { send: (m) => port.postMessage(m), onMessage: (l) => port.on('message', (e) => l(e.data)) };
  return {
    send: (m) => process.send?.(m),
    onMessage: (l) => process.on('message', l),
  };
}

async function run(): Promise<void> {
  const parent = parentChannel();
  let service: RunningService;
  try {
    const config = readConfig(process.argv.slice(2), process.env);
    service = await startService(config, { log: (m) => console.error(`[lore] ${m}`), wasmPath: process.env.LORE_SQLJS_WASM });
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `could not start: ${(error as Error).message}`;
    parent.send({ type: 'failed', message });
    console.error(`Lore LRS ${message}`);
    process.exit(1);
  }
  parent.send({ type: 'ready', url: service.url });
  console.log(`Lore LRS listening on ${service.url}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await service.stop();
    process.exit(0);
  };
  parent.onMessage((message) => {
    if ((message as { type?: unknown } | null)?.type === 'shutdown') void stop();
  });
  // `on`, not `once`: a repeated signal must not fall back to the default action mid-snapshot.
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

void run();
