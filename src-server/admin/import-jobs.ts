/**
 * Imports of statements into a Store (docs/import.md): pulled from another LRS, or read from an
 * NDJSON file. One ImportJobs per service (no module state): the service creates it, starts it
 * (unfinished pulls continue by themselves, after a restart or a kill) and stops it (a pull under
 * way is paused where it is, and continues at the next start).
 *
 * Every job is kept in storage as it progresses (after each page or batch of lines), with where a
 * pull goes on: the source's `more` link, and the last statement reached. Statements are idempotent
 * by id, so going on from a little before where the work stopped imports nothing twice. Of several
 * processes on one database, the one holding a job's lease (Storage.claimImportJob) runs it.
 */
import { randomUUID } from 'node:crypto';
import { importStatements, type ImportBatchResult, type ImportItem, type StatementImportContext } from '../lrs/statement-imports';
import type { RecordedStatementListener } from '../lrs/statement-writes';
import type { ImportJobRecord, Storage, StoreRecord } from '../storage/storage';
import type { AuditLog } from './audit-log';
import { ImportSource, ImportSourceError, type SourcePage } from './import-source';
import { ndjsonLines, NdjsonTooLargeError } from './ndjson-lines';

/** Problems kept per job: the first ones say what is wrong; the counts say how much. */
const MAX_PROBLEMS = 100;
/** Lines of an NDJSON file imported (and the job saved) together. */
const NDJSON_BATCH = 200;

export interface ImportJobsOptions {
  storage: Storage;
  /** The console's live events: imported statements are announced as any others. */
  events: RecordedStatementListener;
  /** This service's base URL: the authority of a statement its source returned without one. */
  publicUrl: () => string;
  log?: (message: string) => void;
  /** How long a job's lease lasts unrenewed; renewed every third of it. Default 30 s. */
  leaseMs?: number;
  /** How often unfinished jobs no process runs are looked for (another process's that stopped). Default 5 s. */
  pollMs?: number;
  /** Waits before retrying a source that could not be reached or answered 429/5xx; then the job fails. */
  retryDelaysMs?: readonly number[];
  /** Longest wait for one answer of a source. Default 30 s. */
  sourceTimeoutMs?: number;
  /** Statements per page asked of a source; absent: the source's own page size. */
  pageSize?: number;
  /** The audit log: an import's end is recorded there (its start is the admin request's entry). */
  audit?: Pick<AuditLog, 'record'>;
  /** The largest NDJSON body and line. Defaults 1 GiB and 4 MiB. */
  maxNdjsonBytes?: number;
  maxNdjsonLineBytes?: number;
}

export interface PullInput {
  endpoint: string;
  key: string;
  secret: string;
  since?: string;
}

/** A job as the admin API shows it: never its secret. */
export type ImportJobView = Omit<ImportJobRecord, 'secret'>;

export function importJobView(job: ImportJobRecord): ImportJobView {
  const { secret: _secret, ...view } = job;
  return view;
}

/** The NDJSON body was too large: the job is kept as failed; the route answers 413. */
export class ImportBodyTooLargeError extends Error {
  constructor(
    message: string,
    readonly job: ImportJobRecord,
  ) {
    super(message);
    this.name = 'ImportBodyTooLargeError';
  }
}

export class ImportJobs {
  private readonly owner = randomUUID();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  /** Jobs this process is starting or reading a file for: never picked up as unfinished meanwhile. */
  private readonly own = new Set<string>();
  private resuming = false;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly log: (message: string) => void;
  private readonly leaseMs: number;

  constructor(private readonly options: ImportJobsOptions) {
    this.log = options.log ?? (() => {});
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  /** Continues every unfinished job no other process runs, then keeps looking for such jobs. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.resumeUnfinished();
    this.timer = setInterval(() => void this.resumeUnfinished(), this.options.pollMs ?? 5_000);
    this.timer.unref();
  }

  /** Pauses the jobs under way (they continue at the next start) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const runs = [...this.running.values()];
    for (const run of runs) run.abort.abort();
    await Promise.all(runs.map((run) => run.done));
  }

  list(store: StoreRecord): Promise<ImportJobRecord[]> {
    return this.options.storage.listImportJobs({ storeId: store.id });
  }

  find(store: StoreRecord, id: string): Promise<ImportJobRecord | null> {
    return this.options.storage.findImportJob(store.id, id);
  }

  /** Records a pull and starts it; resolves with the job as recorded, before any statement is read. */
  async startPull(store: StoreRecord, input: PullInput): Promise<ImportJobRecord> {
    const job = newJob(store, 'lrs', { endpoint: input.endpoint, key: input.key, secret: input.secret, since: input.since ?? null, fileName: null });
    this.own.add(job.id);
    try {
      await this.options.storage.putImportJob(job);
      this.auditTrail('started', store, job);
      if (await this.options.storage.claimImportJob(job.id, this.owner, this.leaseMs)) this.launch(job, (signal) => this.runPull(store, job, signal));
    } finally {
      this.own.delete(job.id);
    }
    return job;
  }

  /** Reads an NDJSON body line by line into the Store; resolves with the job once the body is read. */
  async importNdjson(store: StoreRecord, body: AsyncIterable<Buffer | string>, fileName: string | null): Promise<ImportJobRecord> {
    const job = newJob(store, 'ndjson', { endpoint: null, key: null, secret: null, since: null, fileName });
    // Until the file is read, this process's search for unfinished jobs must not take it for one
    // whose upload a stop cut off.
    this.own.add(job.id);
    try {
      return await this.readNdjsonJob(store, job, body);
    } finally {
      this.own.delete(job.id);
    }
  }

  private async readNdjsonJob(store: StoreRecord, job: ImportJobRecord, body: AsyncIterable<Buffer | string>): Promise<ImportJobRecord> {
    await this.options.storage.putImportJob(job);
    this.auditTrail('started', store, job);
    await this.options.storage.claimImportJob(job.id, this.owner, this.leaseMs);
    const renewal = this.keepLease(job.id, null);
    try {
      await this.readNdjson(store, job, body);
    } catch (err) {
      if (err instanceof NdjsonTooLargeError) {
        await this.end(store, job, 'failed', err.message);
        throw new ImportBodyTooLargeError(err.message, job);
      }
      await this.end(store, job, 'failed', `The file could not be read to its end: ${err instanceof Error ? err.message : String(err)}`);
      return job;
    } finally {
      clearInterval(renewal);
    }
    await this.end(store, job, 'finished', null);
    return job;
  }

  private async readNdjson(store: StoreRecord, job: ImportJobRecord, body: AsyncIterable<Buffer | string>): Promise<void> {
    const context = this.context(store, job);
    let batch: ImportItem[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const items = batch;
      batch = [];
      this.add(job, items.length, await importStatements(context, items));
      await this.save(job);
    };
    const limits = { maxBytes: this.options.maxNdjsonBytes ?? 1024 ** 3, maxLineBytes: this.options.maxNdjsonLineBytes ?? 4 * 1024 ** 2 };
    for await (const line of ndjsonLines(body, limits)) {
      if ('tooLong' in line) {
        this.addProblem(job, 1, { kind: 'invalid', line: line.line, message: `The line is longer than ${limits.maxLineBytes} bytes.` });
        continue;
      }
      let statement: unknown;
      try {
        statement = JSON.parse(line.text);
      } catch (err) {
        this.addProblem(job, 1, { kind: 'invalid', line: line.line, message: `Not JSON: ${err instanceof Error ? err.message : String(err)}` });
        continue;
      }
      batch.push({ statement, line: line.line });
      if (batch.length >= NDJSON_BATCH) await flush();
    }
    await flush();
  }

  private async resumeUnfinished(): Promise<void> {
    // One search at a time: two could both take the same job.
    if (this.stopped || this.resuming) return;
    this.resuming = true;
    try {
      const jobs = await this.options.storage.listImportJobs({ unfinished: true });
      for (const job of jobs) {
        if (this.stopped || this.running.has(job.id) || this.own.has(job.id)) continue;
        if (!(await this.options.storage.claimImportJob(job.id, this.owner, this.leaseMs))) continue;
        // Read again once held: another process may have moved it on meanwhile.
        const current = await this.options.storage.findImportJob(job.storeId, job.id);
        const store = await this.options.storage.findStoreById(job.storeId);
        if (!current || (current.state !== 'running' && current.state !== 'paused')) {
          await this.options.storage.claimImportJob(job.id, this.owner, 0);
          continue;
        }
        if (!store) {
          await this.endWithoutStore(current);
          continue;
        }
        if (current.kind === 'ndjson') {
          // The file was a request's body: it is gone with the request.
          await this.end(store, current, 'failed', 'The service stopped while the file was read. Import the file again: statements already imported count as already present.');
          continue;
        }
        this.log(`import ${current.id} into Store ${store.slug}: continuing`);
        this.launch(current, (signal) => this.runPull(store, current, signal));
      }
    } catch (err) {
      this.log(`could not look for unfinished imports: ${String(err)}`);
    } finally {
      this.resuming = false;
    }
  }

  private launch(job: ImportJobRecord, run: (signal: AbortSignal) => Promise<void>): void {
    const abort = new AbortController();
    const renewal = this.keepLease(job.id, abort);
    const done = run(abort.signal)
      .catch((err: unknown) => this.log(`import ${job.id} stopped on an error: ${String(err)}`))
      .finally(() => {
        clearInterval(renewal);
        this.running.delete(job.id);
      });
    this.running.set(job.id, { abort, done });
  }

  /** Renews the job's lease while it runs; a lease lost to another process stops the run here. */
  private keepLease(id: string, abort: AbortController | null): NodeJS.Timeout {
    const timer = setInterval(() => {
      void this.options.storage.claimImportJob(id, this.owner, this.leaseMs).then(
        (held) => {
          if (!held) abort?.abort();
        },
        () => {},
      );
    }, this.leaseMs / 3);
    timer.unref();
    return timer;
  }

  private async runPull(store: StoreRecord, job: ImportJobRecord, signal: AbortSignal): Promise<void> {
    if (job.state !== 'running') {
      job.state = 'running';
      await this.save(job);
    }
    const source = new ImportSource({ endpoint: job.endpoint!, key: job.key!, secret: job.secret ?? '', signal, timeoutMs: this.options.sourceTimeoutMs, pageSize: this.options.pageSize });
    const context = this.context(store, job);
    try {
      let page = await this.withRetries(signal, () => this.resumePage(source, job));
      for (;;) {
        const items = page.statements.map((statement) => ({ statement }));
        const result = await importStatements(context, items, { fetchVoidedTarget: (id) => this.withRetries(signal, () => source.voidedStatement(id)) });
        this.add(job, items.length, result);
        job.more = page.more;
        await this.save(job);
        if (page.more === null) break;
        const more = page.more;
        page = await this.withRetries(signal, () => source.nextPage(more));
      }
      await this.end(store, job, 'finished', null);
    } catch (err) {
      if (signal.aborted) {
        // Stopping (or the lease lost): where it was is saved; the next start goes on from there.
        if (this.stopped) {
          job.state = 'paused';
          await this.save(job).catch(() => {});
        }
        await this.options.storage.claimImportJob(job.id, this.owner, 0).catch(() => {});
        return;
      }
      const message = err instanceof ImportSourceError ? err.message : `The import stopped on an error: ${err instanceof Error ? err.message : String(err)}`;
      await this.end(store, job, 'failed', message);
    }
  }

  /** Where a pull (re)starts: the saved `more` link; if the source no longer takes it, from the last statement reached. */
  private async resumePage(source: ImportSource, job: ImportJobRecord): Promise<SourcePage> {
    if (job.more !== null) {
      try {
        return await source.nextPage(job.more);
      } catch (err) {
        if (!(err instanceof ImportSourceError && err.moreRefused)) throw err;
        this.log(`import ${job.id}: the source no longer takes its more link; going on from the last statement reached`);
      }
    }
    // One millisecond before the last statement reached: `since` is exclusive, and statements
    // stored in the same millisecond come again, as already present.
    const since = job.reached ? new Date(Date.parse(job.reached.stored) - 1).toISOString() : job.since;
    return source.firstPage(since);
  }

  private async withRetries<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const delays = this.options.retryDelaysMs ?? [1_000, 5_000, 15_000, 30_000, 60_000];
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (signal.aborted || !(err instanceof ImportSourceError) || !err.transient || attempt >= delays.length) throw err;
        this.log(`import: ${err.message} Trying again in ${delays[attempt]} ms.`);
        await sleep(delays[attempt]!, signal);
      }
    }
  }

  private context(store: StoreRecord, job: ImportJobRecord): StatementImportContext {
    return {
      storage: this.options.storage,
      store,
      keyId: `import:${job.id}`,
      fallbackAuthority: { objectType: 'Agent', name: 'Import', account: { homePage: this.options.publicUrl(), name: `import:${job.id}` } },
      now: () => new Date(),
      events: this.options.events,
    };
  }

  private add(job: ImportJobRecord, read: number, result: ImportBatchResult): void {
    job.counts.read += read + result.extraRead;
    job.counts.imported += result.imported;
    job.counts.alreadyPresent += result.alreadyPresent;
    job.counts.voided += result.voided;
    for (const problem of result.problems) this.addProblem(job, 0, problem);
    if (result.last) job.reached = result.last;
  }

  /** Counts a problem (`read`: lines read that never became an item) and keeps the first ones. */
  private addProblem(job: ImportJobRecord, read: number, problem: ImportJobRecord['problems'][number]): void {
    job.counts.read += read;
    if (problem.kind === 'invalid') job.counts.invalid += 1;
    else job.counts.conflicts += 1;
    if (job.problems.length < MAX_PROBLEMS) job.problems.push(problem);
  }

  private async save(job: ImportJobRecord): Promise<void> {
    job.updatedAt = new Date().toISOString();
    await this.options.storage.putImportJob(job);
  }

  /** Ends the job: its secret is dropped, and it is recorded as finished or failed. */
  private async end(store: StoreRecord, job: ImportJobRecord, state: 'finished' | 'failed', error: string | null): Promise<void> {
    job.state = state;
    job.error = error;
    job.secret = null;
    job.more = null;
    job.finishedAt = new Date().toISOString();
    await this.save(job);
    await this.options.storage.claimImportJob(job.id, this.owner, 0).catch(() => {});
    this.auditTrail(state, store, job);
  }

  private async endWithoutStore(job: ImportJobRecord): Promise<void> {
    Object.assign(job, { state: 'failed', error: 'The Store was deleted.', secret: null, more: null, finishedAt: new Date().toISOString() });
    await this.save(job);
    await this.options.storage.claimImportJob(job.id, this.owner, 0).catch(() => {});
  }

  /**
   * The one place an import's start and end are told: the service log says both; the audit log
   * keeps the end (the admin request that started it has its own entry). Never the secret: only
   * the job's id, kind, source and counts.
   */
  private auditTrail(what: 'started' | 'finished' | 'failed', store: StoreRecord, job: ImportJobRecord): void {
    const source = job.kind === 'lrs' ? `from ${job.endpoint}` : `from an NDJSON file${job.fileName ? ` (${job.fileName})` : ''}`;
    const counts = what === 'started' ? '' : `: ${JSON.stringify(job.counts)}${job.error ? `; ${job.error}` : ''}`;
    this.log(`import ${job.id} into Store ${store.slug} ${source} ${what}${counts}`);
    if (what === 'started' || !this.options.audit) return;
    void this.options.audit.record({
      action: 'statements.import',
      outcome: what === 'finished' ? 'succeeded' : 'failed',
      store: store.slug,
      target: job.id,
      errorCode: what === 'failed' ? 'import_failed' : null,
      detail: { kind: job.kind, counts: job.counts, ...(job.error ? { error: job.error } : {}) },
      actor: { actor: 'service', detail: null },
    });
  }
}

function newJob(store: StoreRecord, kind: ImportJobRecord['kind'], source: Pick<ImportJobRecord, 'endpoint' | 'key' | 'secret' | 'since' | 'fileName'>): ImportJobRecord {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    storeId: store.id,
    kind,
    state: 'running',
    ...source,
    more: null,
    reached: null,
    counts: { read: 0, imported: 0, alreadyPresent: 0, voided: 0, invalid: 0, conflicts: 0 },
    problems: [],
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
