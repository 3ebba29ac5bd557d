/**
 * A Store's own retention, run by the service (docs/erasure-and-retention.md): every `intervalMs`
 * (and soon after start), each Store that keeps something for a period of its own has its older
 * statements, rejected entries and refused requests removed, one storage step at a time (at most
 * RETENTION_STEP_ROWS rows of each kind, one short write each), the event loop let go between
 * steps so requests never wait behind a backlog. An object the service creates and stops.
 */
import { hasOwnRetention, retentionCutoffs } from '../limits/store-retention';
import type { RetentionStepResult } from '../storage/erasure';
import type { Storage } from '../storage/storage';

export interface RetentionScheduleOptions {
  storage: Pick<Storage, 'listStores' | 'retentionStep'>;
  intervalMs: number;
  log: (message: string) => void;
  now?: () => number;
  /** How long after start the first round runs. */
  startDelayMs?: number;
}

export const DEFAULT_STORE_RETENTION_INTERVAL_MS = 10 * 60_000;

export class RetentionSchedule {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<RetentionStepResult> | null = null;
  private stopped = false;

  constructor(private readonly options: RetentionScheduleOptions) {}

  start(): void {
    this.schedule(this.options.startDelayMs ?? 5_000);
  }

  stop(): Promise<unknown> {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.running ?? Promise.resolve();
  }

  /** One round over every Store, step by step until nothing is due; resolves with what went. */
  runOnce(): Promise<RetentionStepResult> {
    this.running ??= this.round().finally(() => (this.running = null));
    return this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce()
        .catch((err: unknown) => this.options.log(`could not apply the Stores' retention: ${String(err)}`))
        .finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<RetentionStepResult> {
    const total: RetentionStepResult = { statements: 0, rejections: 0, refusals: 0 };
    const now = (this.options.now ?? Date.now)();
    for (const store of await this.options.storage.listStores()) {
      if (!hasOwnRetention(store.retention)) continue;
      const cutoffs = retentionCutoffs(store.retention, now);
      for (;;) {
        if (this.stopped) return total;
        const step = await this.options.storage.retentionStep(store.id, cutoffs);
        total.statements += step.statements;
        total.rejections += step.rejections;
        total.refusals += step.refusals;
        if (step.statements + step.rejections + step.refusals === 0) break;
        // Requests run between steps.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (total.statements + total.rejections + total.refusals > 0) {
      this.options.log(`retention: removed ${total.statements} statements, ${total.rejections} rejected entries, ${total.refusals} refused requests past their Stores' periods`);
    }
    return total;
  }
}
