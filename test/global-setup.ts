/**
 * Before any test file: the web console and desktop bundles are built when their sources changed
 * (the same step `npm run serve` takes), so every test file finds what the service serves, whether
 * it runs alone, first, or in any order on a fresh clone.
 */
import { buildIfStale } from '../scripts/build-if-stale.mjs';

export default async function setup(): Promise<void> {
  await buildIfStale({ log: () => {} });
}
