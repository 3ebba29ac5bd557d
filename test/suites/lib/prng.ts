/**
 * A small seeded PRNG (mulberry32) so that every generated request, kill moment and think time
 * is reproducible from the seed a suite prints.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
  bytes(length: number): Buffer;
  /** A new generator derived from this one, for an independent stream (one per writer, learner). */
  fork(): Rng;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (probability) => next() < probability,
    bytes: (length) => {
      const buf = Buffer.allocUnsafe(length);
      for (let i = 0; i < length; i++) buf[i] = Math.floor(next() * 256);
      return buf;
    },
    fork: () => createRng(Math.floor(next() * 4294967296)),
  };
  return rng;
}

/** A UUID v4 drawn from the generator (reproducible, unlike crypto.randomUUID). */
export function uuidFrom(rng: Rng): string {
  const hex = rng.bytes(16);
  hex[6] = (hex[6]! & 0x0f) | 0x40;
  hex[8] = (hex[8]! & 0x3f) | 0x80;
  const s = hex.toString('hex');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}
