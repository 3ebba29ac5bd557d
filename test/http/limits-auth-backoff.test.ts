import { describe, expect, it } from 'vitest';
import { AuthBackoff, type BackoffPolicy } from '../../src-server/http/plugins/auth-backoff';

const policy: BackoffPolicy = { maxFailures: 3, windowMs: 60_000, firstBlockMs: 10_000, maxBlockMs: 40_000, forgetAfterMs: 600_000 };

type Step = ['fail' | 'succeed', string] | ['wait', number] | ['check', string, number | 'ok'];

function run(steps: Step[]) {
  let now = 0;
  const backoff = new AuthBackoff(policy, () => now);
  for (const [index, step] of steps.entries()) {
    if (step[0] === 'wait') now += step[1];
    else if (step[0] === 'fail') backoff.fail(step[1]);
    else if (step[0] === 'succeed') backoff.succeed(step[1]);
    else {
      const decision = backoff.check(step[1]);
      const seen = decision.ok ? 'ok' : decision.retryAfterSeconds;
      expect(seen, `step ${index}: check ${step[1]}`).toBe(step[2]);
    }
  }
}

const fails = (key: string, count: number): Step[] => Array.from({ length: count }, () => ['fail', key] as Step);

describe('backoff after failed credentials', () => {
  it.each<[string, Step[]]>([
    ['lets an address try until the failures reach the threshold', [...fails('a', 2), ['check', 'a', 'ok']]],
    ['blocks the address at the threshold for the first block', [...fails('a', 3), ['check', 'a', 10]]],
    ['counts down the wait', [...fails('a', 3), ['wait', 4_500], ['check', 'a', 6]]],
    ['lets the address try again when the block ends', [...fails('a', 3), ['wait', 10_000], ['check', 'a', 'ok']]],
    ['doubles the block with each failure after one', [...fails('a', 3), ['wait', 10_000], ['fail', 'a'], ['check', 'a', 20]]],
    [
      'stops doubling at the longest block',
      [...fails('a', 3), ['wait', 10_000], ['fail', 'a'], ['wait', 20_000], ['fail', 'a'], ['wait', 40_000], ['fail', 'a'], ['check', 'a', 40]],
    ],
    ['forgets failures older than the window', [...fails('a', 2), ['wait', 60_000], ['fail', 'a'], ['check', 'a', 'ok']]],
    ['starts over after a long quiet time', [...fails('a', 3), ['wait', 610_000], ['fail', 'a'], ['check', 'a', 'ok']]],
    ['starts over after an accepted credential', [...fails('a', 2), ['succeed', 'a'], ...fails('a', 2), ['check', 'a', 'ok']]],
    ['never slows another address', [...fails('a', 3), ['check', 'b', 'ok'], ['fail', 'b'], ['check', 'b', 'ok']]],
  ])('%s', (_name, steps) => run(steps));

  it('keeps memory bounded when failures come from very many addresses', () => {
    const backoff = new AuthBackoff(policy, () => 0);
    for (let i = 0; i < 60_000; i++) backoff.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(backoff.size).toBeLessThanOrEqual(50_000);
  });
});
