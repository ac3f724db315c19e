import { getContractAddress, type Hex, hexToBytes } from 'viem'
import type { MinerPool } from './miner-pool.ts'
import { buildPreimageBlock, saltAt, startCounter } from './preimage.ts'
import { addressSatisfies, compileSaltRule, type SaltRule } from './salt-rule.ts'

export type MineSaltParameters = {
  deployer: Hex
  initCodeHash: Hex
  rule: SaltRule
  /** 32 bytes derived from the intent: the same intent mines the same salt on every replica. */
  seed: Hex
  /** Most candidates to try before giving up (a property of the rule, not of load). */
  maxIterations: number
  /** Wall-clock budget; checked between batches. */
  timeBudgetMs: number
  /** Candidates per worker per batch: smaller answers budget checks sooner. */
  batchPerWorker?: number
}

export type MinedSalt = {
  salt: Hex
  predictedAddress: Hex
  /** 1-based position of the salt in the deterministic candidate order. */
  iterations: number
}

export type MineSaltResult = (
  | ({ ok: true } & MinedSalt)
  | { ok: false; reason: 'iteration_cap' | 'time_budget'; tried: number }
) & {
  /** Worker-milliseconds the search took, summed over its ranges: what it cost the pool. */
  workMs: number
}

/**
 * Mines a CREATE2 salt whose address satisfies `rule`.
 *
 * Deterministic: candidates are tried in a fixed order from the seed and the
 * lowest satisfying index wins, whatever the pool size or timing, because
 * each batch waits for all its ranges and takes the smallest hit.
 */
export const mineSalt = async (
  pool: MinerPool,
  {
    deployer,
    initCodeHash,
    rule,
    seed,
    maxIterations,
    timeBudgetMs,
    batchPerWorker = 1 << 16,
  }: MineSaltParameters,
): Promise<MineSaltResult> => {
  const seedSalt = hexToBytes(seed)
  const block = buildPreimageBlock({ deployer, initCodeHash, seedSalt })
  const start = startCounter(seedSalt)
  const compiled = compileSaltRule(rule)
  const deadline = performance.now() + timeBudgetMs
  let workMs = 0

  for (let offset = 0; offset < maxIterations; offset += batchPerWorker * pool.size) {
    if (performance.now() > deadline)
      return { ok: false, reason: 'time_budget', tried: offset, workMs }
    const ranges = Array.from({ length: pool.size }, (_, worker) => {
      const from = offset + worker * batchPerWorker
      return { from, count: Math.max(0, Math.min(batchPerWorker, maxIterations - from)) }
    }).filter((range) => range.count > 0)
    const answers = await Promise.all(
      ranges.map(({ from, count }) => pool.run({ block, start, from, count, ...compiled })),
    )
    for (const answer of answers) workMs += answer.ms
    const found = answers.map((answer) => answer.index).filter((index) => index >= 0)
    if (found.length === 0) continue

    const index = Math.min(...found)
    const salt = saltAt(seedSalt, index)
    const predictedAddress = getContractAddress({
      opcode: 'CREATE2',
      from: deployer,
      salt,
      bytecodeHash: initCodeHash,
    })
    // The WebAssembly answer is checked independently before anyone signs it.
    if (!addressSatisfies(predictedAddress, rule)) {
      throw new Error(
        `miner returned salt ${salt} whose address ${predictedAddress} fails the rule`,
      )
    }
    return { ok: true, salt, predictedAddress, iterations: index + 1, workMs }
  }
  return { ok: false, reason: 'iteration_cap', tried: maxIterations, workMs }
}
