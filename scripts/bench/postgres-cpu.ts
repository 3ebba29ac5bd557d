/**
 * CPU time of one PostgreSQL server on this machine: its postmaster (with the CPU of its children
 * that ended, which the kernel adds to it) and every process it runs now (a backend per
 * connection, the WAL writer, the checkpointer…). Other PostgreSQL servers on the machine (tests
 * running beside the benchmark) are not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { cpuMicros } from './load';

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The postmaster's pid of the server `url` names, when it runs on this machine; null otherwise. */
export async function postmasterPid(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]!.pid;
    const parent = parentOf(backend);
    // A server elsewhere: the pid means nothing here (or is another process).
    if (parent === null || readFileSync(`/proc/${parent}/comm`, 'utf8').trim() !== 'postgres') return null;
    return parent;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** CPU time, µs, of the server whose postmaster is `postmaster`. */
export function serverCpuMicros(postmaster: number): number {
  let total = cpuMicros(postmaster) ?? 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === postmaster) continue;
    if (parentOf(Number(entry)) !== postmaster) continue;
    total += cpuMicros(Number(entry)) ?? 0;
  }
  return total;
}

/**
 * The same CPU by kind of process: `connections` (the backends serving clients), each background
 * process by its title (`walwriter`, `checkpointer`, `autovacuum worker`…), and `ended` (the
 * postmaster with the processes that ended, the kernel adds their CPU to it).
 */
export function serverCpuByKind(postmaster: number): Map<string, number> {
  const kinds = new Map<string, number>([['ended', cpuMicros(postmaster) ?? 0]]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === postmaster || parentOf(Number(entry)) !== postmaster) continue;
    let title = '';
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    // "postgres: walwriter", "postgres: autovacuum worker lore", "postgres: lore lore_db 127.0.0.1(5432) idle"
    const kind = /^postgres: (walwriter|checkpointer|background writer|autovacuum launcher|autovacuum worker|logical replication launcher|io worker|walsummarizer)/.exec(title)?.[1] ?? 'connections';
    kinds.set(kind, (kinds.get(kind) ?? 0) + (cpuMicros(Number(entry)) ?? 0));
  }
  return kinds;
}
