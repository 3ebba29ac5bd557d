import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ServiceStatus } from '../../src-main/bridge-types';
import { backoffDelay, createServiceSupervisor } from '../../src-main/service-supervisor';
import type { ServiceChild, SupervisorOptions } from '../../src-main/service-supervisor';

/** A service process under the test's control. */
class FakeChild implements ServiceChild {
  stopRequests = 0;
  killed = false;
  private exitListener: ((code: number | null) => void) | undefined;
  private messageListener: ((message: unknown) => void) | undefined;

  constructor(
    readonly pid: number,
    private readonly onStop: 'exit' | 'ignore' | 'throw',
  ) {}

  onExit(listener: (code: number | null) => void): void {
    this.exitListener = listener;
  }
  onMessage(listener: (message: unknown) => void): void {
    this.messageListener = listener;
  }
  /** What src-server/service/service-process.ts posts once it listens. */
  ready(url = `http://127.0.0.1:${8000 + this.pid}`): void {
    this.messageListener?.({ type: 'ready', url });
  }
  post(message: unknown): void {
    this.messageListener?.(message);
  }
  requestStop(): void {
    this.stopRequests += 1;
    if (this.onStop === 'throw') throw new Error('channel closed');
    if (this.onStop === 'exit') queueMicrotask(() => this.exit(0));
  }
  kill(): void {
    this.killed = true;
    this.exit(null);
  }
  exit(code: number | null): void {
    this.exitListener?.(code);
  }
}

function setup(options: Partial<SupervisorOptions> & { onStop?: 'exit' | 'ignore' | 'throw' } = {}) {
  const children: FakeChild[] = [];
  const statuses: ServiceStatus[] = [];
  const { onStop = 'exit', ...rest } = options;
  const spawn = vi.fn(() => {
    const child = new FakeChild(1000 + children.length, onStop);
    children.push(child);
    return child;
  });
  const supervisor = createServiceSupervisor({
    spawn,
    initialBackoffMs: 500,
    maxBackoffMs: 30_000,
    stableAfterMs: 10_000,
    maxQuickCrashes: 5,
    stopTimeoutMs: 5_000,
    ...rest,
  });
  supervisor.onStatus((status) => statuses.push(status));
  const last = () => children[children.length - 1] as FakeChild;
  return { supervisor, spawn, children, statuses, last };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('service supervisor', () => {
  it('starts the service once and reports it starting, with its pid, until it says it listens', () => {
    const { supervisor, spawn } = setup();
    supervisor.start();
    supervisor.start();
    expect(spawn).toHaveBeenCalledTimes(1);
    expect(supervisor.status()).toEqual({ state: 'starting', restarts: 0, pid: 1000 });
  });

  it('reports running with the URL only when the service posts ready', () => {
    const { supervisor, last, statuses } = setup();
    supervisor.start();
    last().post({ type: 'ready' });
    last().post({ type: 'ready', url: 'not a url' });
    last().post('ready');
    expect(supervisor.status().state).toBe('starting');
    last().ready('http://127.0.0.1:8411');
    expect(supervisor.status()).toEqual({ state: 'running', restarts: 0, pid: 1000, url: 'http://127.0.0.1:8411' });
    expect(statuses.map((s) => s.state)).toEqual(['starting', 'running']);
  });

  it('ignores ready from a process it already replaced', () => {
    const { supervisor, children, last } = setup();
    supervisor.start();
    last().exit(1);
    vi.advanceTimersByTime(500);
    (children[0] as FakeChild).ready('http://127.0.0.1:1');
    expect(supervisor.status().state).toBe('starting');
    last().ready('http://127.0.0.1:2');
    expect(supervisor.status()).toMatchObject({ state: 'running', url: 'http://127.0.0.1:2', pid: 1001 });
  });

  it('stops at failed with the service\'s own reason when it reports failed, without retrying', () => {
    const { supervisor, spawn, last } = setup();
    supervisor.start();
    last().post({ type: 'failed', message: 'Invalid configuration (port): port must be 0 to 65535' });
    last().exit(1);
    expect(supervisor.status()).toMatchObject({
      state: 'failed',
      lastExitCode: 1,
      message: 'The local LRS service could not start: Invalid configuration (port): port must be 0 to 65535',
    });
    vi.advanceTimersByTime(60_000);
    expect(spawn).toHaveBeenCalledTimes(1);
  });

  it('restarts on request: stops gracefully, then starts a new process that reads the settings anew', async () => {
    const ports: number[] = [];
    let port = 8411;
    const { supervisor, children } = setup({});
    supervisor.onStatus((s) => {
      if (s.state === 'starting') ports.push(port);
    });
    supervisor.start();
    children[0]!.ready();
    port = 9000;
    await supervisor.restart();
    expect(children).toHaveLength(2);
    expect(children[0]!.stopRequests).toBe(1);
    expect(children[0]!.killed).toBe(false);
    expect(supervisor.status()).toMatchObject({ state: 'starting', pid: 1001 });
    expect(ports).toEqual([8411, 9000]);
  });

  it('restarts after an unexpected exit, doubling the delay for each quick crash', () => {
    const { supervisor, spawn, last, statuses } = setup({ maxQuickCrashes: 10 });
    supervisor.start();
    const delays: number[] = [];
    for (let crash = 1; crash <= 4; crash++) {
      last().exit(1);
      const status = supervisor.status();
      expect(status.state).toBe('restarting');
      expect(status.lastExitCode).toBe(1);
      delays.push(status.retryInMs ?? -1);
      vi.advanceTimersByTime((status.retryInMs ?? 0) - 1);
      expect(spawn).toHaveBeenCalledTimes(crash);
      vi.advanceTimersByTime(1);
      expect(spawn).toHaveBeenCalledTimes(crash + 1);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000]);
    expect(supervisor.status()).toMatchObject({ state: 'starting', restarts: 4 });
    expect(statuses.at(-2)?.message).toMatch(/exited unexpectedly with code 1; restarting in 4000 ms/);
  });

  it('gives up after the fifth quick crash in a row and says why', () => {
    const { supervisor, spawn, last } = setup();
    supervisor.start();
    for (let crash = 1; crash <= 5; crash++) {
      last().exit(3);
      // Only as long as the backoff: each new process crashes well within the stable time.
      vi.advanceTimersByTime(supervisor.status().retryInMs ?? 0);
    }
    expect(spawn).toHaveBeenCalledTimes(5);
    const status = supervisor.status();
    expect(status.state).toBe('failed');
    expect(status.lastExitCode).toBe(3);
    expect(status.message).toMatch(/stopped 5 times in a row within 10 s of starting/);
    vi.advanceTimersByTime(10 * 60_000);
    expect(spawn).toHaveBeenCalledTimes(5);
  });

  it('starts a new series at the first delay when the crashed process had run stably', () => {
    const { supervisor, last } = setup();
    supervisor.start();
    last().exit(1);
    vi.advanceTimersByTime(500);
    last().exit(1);
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(10_000); // this run is stable
    last().exit(1);
    expect(supervisor.status()).toMatchObject({ state: 'restarting', retryInMs: 500 });
  });

  it('treats a spawn that throws as a quick crash and retries', () => {
    let calls = 0;
    const child = new FakeChild(7, 'exit');
    const supervisor = createServiceSupervisor({
      spawn: () => {
        calls += 1;
        if (calls === 1) throw new Error('module not found');
        return child;
      },
    });
    supervisor.start();
    expect(supervisor.status()).toMatchObject({ state: 'restarting', lastExitCode: null });
    expect(supervisor.status().message).toMatch(/could not start: module not found/);
    vi.advanceTimersByTime(500);
    expect(supervisor.status()).toMatchObject({ state: 'starting', pid: 7, restarts: 1 });
  });

  it('caps the backoff', () => {
    expect([1, 2, 3, 7, 8, 20].map((n) => backoffDelay(n, 500, 30_000))).toEqual([
      500, 1000, 2000, 30_000, 30_000, 30_000,
    ]);
  });

  it('stops gracefully: asks the service to exit, does not kill it, does not restart it', async () => {
    const { supervisor, spawn, last } = setup();
    supervisor.start();
    await supervisor.stop();
    expect(last().stopRequests).toBe(1);
    expect(last().killed).toBe(false);
    expect(supervisor.status()).toEqual({ state: 'stopped', restarts: 0 });
    vi.advanceTimersByTime(60_000);
    expect(spawn).toHaveBeenCalledTimes(1);
  });

  it('kills a service that does not exit within the stop timeout', async () => {
    const { supervisor, last } = setup({ onStop: 'ignore' });
    supervisor.start();
    const stopped = supervisor.stop();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(last().killed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stopped;
    expect(last().killed).toBe(true);
    expect(supervisor.status().state).toBe('stopped');
  });

  it('kills at once when the graceful request cannot be delivered', async () => {
    const { supervisor, last } = setup({ onStop: 'throw' });
    supervisor.start();
    await supervisor.stop();
    expect(last().killed).toBe(true);
  });

  it('resolves stop even when a killed process never reports its exit, so the app can quit', async () => {
    const stubborn = new FakeChild(9, 'ignore');
    stubborn.kill = () => {
      stubborn.killed = true;
    };
    const supervisor = createServiceSupervisor({ spawn: () => stubborn, stopTimeoutMs: 1_000 });
    supervisor.start();
    const stopped = supervisor.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await expect(stopped).resolves.toBeUndefined();
    expect(supervisor.status().state).toBe('stopped');
  });

  it('cancels a scheduled restart when stopped', async () => {
    const { supervisor, spawn, last } = setup();
    supervisor.start();
    last().exit(1);
    expect(supervisor.status().state).toBe('restarting');
    await supervisor.stop();
    vi.advanceTimersByTime(60_000);
    expect(spawn).toHaveBeenCalledTimes(1);
    expect(supervisor.status().state).toBe('stopped');
  });

  it('returns the same promise to concurrent stop calls', async () => {
    const { supervisor, last } = setup();
    supervisor.start();
    const first = supervisor.stop();
    expect(supervisor.stop()).toBe(first);
    await first;
    expect(last().stopRequests).toBe(1);
  });

  it('ignores a late exit from a process it already replaced', () => {
    const { supervisor, children, last } = setup();
    supervisor.start();
    last().exit(1);
    vi.advanceTimersByTime(500);
    (children[0] as FakeChild).exit(1);
    expect(supervisor.status()).toMatchObject({ state: 'starting', pid: 1001 });
  });

  it('can be started again after it gave up (a manual retry) with a fresh series', () => {
    const { supervisor, spawn, last } = setup({ maxQuickCrashes: 2 });
    supervisor.start();
    last().exit(1);
    vi.advanceTimersByTime(500);
    last().exit(1);
    expect(supervisor.status().state).toBe('failed');
    supervisor.start();
    expect(spawn).toHaveBeenCalledTimes(3);
    last().exit(1);
    expect(supervisor.status()).toMatchObject({ state: 'restarting', retryInMs: 500 });
  });

  it('stops notifying a listener once it unsubscribes, and survives a listener that throws', () => {
    const { supervisor } = setup();
    const seen: string[] = [];
    supervisor.onStatus(() => {
      throw new Error('renderer gone');
    });
    const unsubscribe = supervisor.onStatus((status) => seen.push(status.state));
    supervisor.start();
    unsubscribe();
    void supervisor.stop();
    expect(seen).toEqual(['starting']);
  });
});
