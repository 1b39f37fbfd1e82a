/**
 * The memory Redis answers as redis-server 7 does: every case of contract-cases.ts runs on both,
 * and their transcripts must be equal. Under CI=true a missing redis-server fails the suite.
 */
import { describe, expect, it } from 'vitest';
import { hasRedis } from '../../../redis/redis-targets.js';
import { CASES, Transcript } from './contract-cases.js';
import { memoryTarget, realTarget, type ContractTarget } from './contract-targets.js';

async function transcript(target: ContractTarget, run: (t: Transcript) => Promise<void>): Promise<unknown[]> {
  const t = new Transcript(target);
  try {
    await run(t);
  } finally {
    await target.close();
  }
  return t.lines;
}

describe('the memory Redis answers as redis-server does', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, contract) => {
    const persistence = contract.persistence ?? 'none';
    const memory = await transcript(await memoryTarget(persistence), async (t) => contract.run(t, await t.target.client()));
    if (!hasRedis) {
      expect(memory.length).toBeGreaterThan(0);
      return;
    }
    const real = await transcript(await realTarget(persistence), async (t) => contract.run(t, await t.target.client()));
    expect(memory).toEqual(real);
  });
});
