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
