/**
 * What watching costs ingestion: single-statement POSTs on 10 connections with no console stream
 * open, then with ten (`/admin/api/events`, read as the console reads them), alternated twice so
 * that the machine's drift falls on both sides. The streams are read in this process, as ten
 * console tabs without the shared stream would; each counts the messages it received.
 */
import { runLoad, type LoadResult } from './load';
import { ADMIN_TOKEN, type Child } from './processes';
import type { WatchingReport } from './report';
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

export async function watchingCost(service: Child, post: Scenario, seconds: number): Promise<WatchingReport> {
  const run = () => runLoad({ baseUrl: service.url, connections: 10, seconds, next: post.next, statementsPerRequest: 1, serverPid: service.child.pid });
  const none: LoadResult[] = [];
  const watched: LoadResult[] = [];
  let messagesPerStream = 0;
  for (let round = 0; round < 2; round++) {
    none.push(await run());
    const streams = openStreams(service.url, STREAMS);
    await new Promise((resolve) => setTimeout(resolve, 300)); // connected before the load starts
    watched.push(await run());
    await streams.close();
    messagesPerStream += streams.messages.reduce((sum, n) => sum + n, 0) / STREAMS;
  }
  const mean = (results: LoadResult[]) => results.reduce((sum, r) => sum + r.requestsPerSec, 0) / results.length;
  return {
    streams: STREAMS,
    noneRequestsPerSec: mean(none),
    watchedRequestsPerSec: mean(watched),
    ratio: mean(watched) / mean(none),
    messagesPerStreamPerSec: messagesPerStream / (2 * seconds),
  };
}
