/**
 * What watching costs ingestion: single-statement POSTs on 10 connections with no console stream
 * open, then with ten (`/admin/api/events`, read as the console reads them), then with none again.
 * The streams are read in this process, as ten console tabs without the shared stream would; each
 * counts the messages it received.
 *
 * Read over alternating rounds, each run against the mean of the two runs with none around it:
 * two runs of the same load with nothing changed differ by up to a third on a small machine
 * (measured: second ÷ first 0.90–1.32 over eight rounds of 3 s), so one pair says nothing about a
 * cost of a few percent. That spread is reported beside the ratio.
 */
import { median } from './median';
import { runLoad, type LoadResult } from './load';
import { ADMIN_TOKEN, type Child } from './processes';
import { noneRequestsPerSec, watchedRatio, type WatchingReport, type WatchingRound } from './report';
import type { Scenario } from './scenarios';

const STREAMS = 10;

function openStreams(url: string, count: number) {
  const controller = new AbortController();
  const messages = Array.from({ length: count }, () => 0);
  const done = Array.from({ length: count }, async (_, i) => {
    const response = await fetch(`${url}/admin/api/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/event-stream' }, signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) return;
      messages[i]! += value.split('event: ').length - 1;
    }
  });
  return {
    messages,
    close: async () => {
      controller.abort();
      await Promise.allSettled(done);
    },
  };
}

const runOf = (result: LoadResult) => ({ requestsPerSec: result.requestsPerSec, cpuMicrosPerRequest: result.serverCpuMicrosPerRequest });

export async function watchingCost(service: Child, post: Scenario, seconds: number, rounds: number): Promise<WatchingReport> {
  const run = async () => runOf(await runLoad({ baseUrl: service.url, connections: 10, seconds, next: post.next, statementsPerRequest: 1, serverPid: service.child.pid }));
  const measured: WatchingRound[] = [];
  let messagesPerStream = 0;
  for (let round = 0; round < rounds; round++) {
    const noneBefore = await run();
    const streams = openStreams(service.url, STREAMS);
    await new Promise((resolve) => setTimeout(resolve, 300)); // connected before the load starts
    const watched = await run();
    await streams.close();
    const noneAfter = await run();
    measured.push({ noneBefore, watched, noneAfter });
    messagesPerStream += streams.messages.reduce((sum, n) => sum + n, 0) / STREAMS;
  }
  return summariseWatching(measured, STREAMS, messagesPerStream / (rounds * seconds));
}

/** The rounds' medians: watched ÷ the mean of the runs with none around it. */
function summariseWatching(rounds: WatchingRound[], streams: number, messagesPerStreamPerSec: number): WatchingReport {
  return {
    streams,
    noneRequestsPerSec: median(rounds.map(noneRequestsPerSec)),
    watchedRequestsPerSec: median(rounds.map((r) => r.watched.requestsPerSec)),
    ratio: median(rounds.map(watchedRatio)),
    messagesPerStreamPerSec,
    rounds,
  };
}
