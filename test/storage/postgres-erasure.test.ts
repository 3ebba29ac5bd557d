/** Forgetting a learner and a Store's retention on PostgreSQL: the contract sql.js passes too (erasure-contract.ts). */
import { describe } from 'vitest';
import { postgresPerTest } from '../postgres/per-test';
import { erasureContract } from './erasure-contract';

const postgres = postgresPerTest();

describe('erasure and retention on PostgreSQL', () => {
  erasureContract(() => postgres.openFresh({ poolSize: 2 }));
});
