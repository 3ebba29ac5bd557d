/**
 * `tsx scripts/bench/reads-ab.ts --data-dir DIR --before <main.js> [--after <main.js>] [--rounds 6] [--seconds 2] [--warm-up 10] [--scenario a,b]`
 *
 * Two builds of the service on the same Store, measured in alternating rounds: the read scenarios
 * of reads.ts against an earlier build (`--before`, e.g. a copy of an earlier commit's out/) and
 * this one (out/server/main.js), each on its own copy of DIR (preloaded by reads.ts; DIR itself
 * is never written). On a shared machine the load moves from one second to the next; rounds that
 * alternate see the same load, so the median of the per-round ratios says what a change did where
 * one run of each does not. Prints the medians of CPU µs per request and p95, and the ratio.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { median } from './median';
import { SERVICE_MAIN, startServiceProcess, type Child } from './processes';
import { storeContext } from './read-store';
import { scenarios, type Scenario, type StoreContext } from './scenarios';
import { warmUp } from './warm-up';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    before: { type: 'string' },
    after: { type: 'string', default: SERVICE_MAIN },
    rounds: { type: 'string', default: '6' },
    'warm-up': { type: 'string', default: '10' },
    seconds: { type: 'string', default: '2' },
    scenario: { type: 'string', default: 'get-agent,get-activity,get-verb,explorer-agent,explorer-activity' },
  },
  strict: true,
});
if (!args['data-dir'] || !args.before) throw new Error('--data-dir and --before are required');

interface Side {
  name: string;
  service: Child;
  ctx: StoreContext;
  chosen: Scenario[];
}

async function side(name: string, main: string, dataDir: string, wanted: string[]): Promise<Side> {
  const service = await startServiceProcess({ dataDir, main });
  const ctx = await storeContext(service.url);
  const chosen = scenarios(ctx, 2).filter((s) => wanted.includes(s.name));
  return { name, service, ctx, chosen };
}

async function main(): Promise<void> {
  const wanted = args.scenario.split(',');
  const work = mkdtempSync(join(tmpdir(), 'lore-reads-ab-'));
  const dirs = ['before', 'after'].map((name) => {
    const dir = join(work, name);
    cpSync(args['data-dir']!, dir, { recursive: true });
    return dir;
  });
  const sides: Side[] = [];
  try {
    sides.push(await side('before', args.before!, dirs[0]!, wanted));
    sides.push(await side('after', args.after, dirs[1]!, wanted));
    // Warm-up (warm-up.ts): single POSTs, then every scenario once, on each side.
    for (const s of sides) await warmUp([s.service.url], scenarios(s.ctx, 3), Number(args['warm-up']));
    const cpu = new Map<string, number[]>();
    const p95 = new Map<string, number[]>();
    const push = (map: Map<string, number[]>, key: string, value: number) => map.set(key, [...(map.get(key) ?? []), value]);
    for (let round = 0; round < Number(args.rounds); round++) {
      for (const name of wanted) {
        // Alternate which side goes first, so neither always meets the other's after-effects.
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const s of order) {
          const sc = s.chosen.find((c) => c.name === name);
          if (!sc) throw new Error(`no scenario ${name}`);
          const r = await runLoad({ baseUrl: s.service.url, connections: sc.connections, seconds: Number(args.seconds), next: sc.next, serverPid: s.service.child.pid });
          if (r.non2xx) throw new Error(`${s.name} ${name}: ${r.non2xx} answers not 2xx`);
          push(cpu, `${s.name} ${name}`, r.serverCpuMicrosPerRequest ?? NaN);
          push(p95, `${s.name} ${name}`, r.p95);
        }
      }
    }
    console.log('scenario                 CPU µs/req before → after (ratio of medians; median of round ratios)   p95 ms before → after');
    for (const name of wanted) {
      const [b, a] = [cpu.get(`before ${name}`)!, cpu.get(`after ${name}`)!];
      const ratios = b.map((value, i) => a[i]! / value);
      const cells = [
        `${median(b).toFixed(0).padStart(6)} → ${median(a).toFixed(0).padStart(6)}`,
        `(${(median(a) / median(b)).toFixed(2)}; ${median(ratios).toFixed(2)})`.padEnd(16),
        `${median(p95.get(`before ${name}`)!).toFixed(1).padStart(8)} → ${median(p95.get(`after ${name}`)!).toFixed(1)}`,
      ];
      console.log(`${name.padEnd(24)} ${cells.join('   ')}`);
    }
  } finally {
    for (const s of sides) await s.service.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
