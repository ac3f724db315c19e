import { concat, getContractAddress, type Hex, keccak256, toHex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { compileMiner } from './compile-miner.ts'
import { type MineSaltResult, mineSalt } from './mine-salt.ts'
import { createMinerPool, type MinerPool } from './miner-pool.ts'
import { buildPreimageBlock, saltAt } from './preimage.ts'
import { addressSatisfies, type SaltRule } from './salt-rule.ts'

type MinerExports = {
  memory: WebAssembly.Memory
  mine: (start: bigint, count: number, mask: bigint, value: bigint) => number
  mine2: (start: bigint, count: number, mask: bigint, value: bigint) => number
  digest: (counter: bigint) => void
}
const instantiate = async () =>
  (await WebAssembly.instantiate(await compileMiner())).exports as unknown as MinerExports

// A small deterministic generator, so failures reproduce.
const bytesFrom = (label: string, length: number) => {
  const out = new Uint8Array(length)
  let block = keccak256(toHex(label))
  for (let offset = 0; offset < length; offset += 32) {
    out.set(Buffer.from(block.slice(2), 'hex').subarray(0, Math.min(32, length - offset)), offset)
    block = keccak256(block)
  }
  return out
}

describe('WebAssembly Keccak', () => {
  test('behavior: digest equals viem keccak256 of the CREATE2 preimage', async () => {
    const { memory, digest } = await instantiate()
    for (let round = 0; round < 50; round++) {
      const deployer = toHex(bytesFrom(`deployer${round}`, 20))
      const initCodeHash = toHex(bytesFrom(`init${round}`, 32))
      const seedSalt = bytesFrom(`seed${round}`, 32)
      new Uint8Array(memory.buffer).set(buildPreimageBlock({ deployer, initCodeHash, seedSalt }), 0)
      const index = round * 7919
      const salt = saltAt(seedSalt, index)
      const counter = BigInt(
        `0x${Buffer.from(salt.slice(2), 'hex').subarray(3, 11).reverse().toString('hex')}`,
      )
      digest(BigInt.asIntN(64, counter))
      const ours = toHex(new Uint8Array(memory.buffer).slice(256, 288))
      expect(ours).toBe(keccak256(concat(['0xff', deployer, salt, initCodeHash])))
    }
  })

  test('behavior: mine and mine2 return the first index whose lane matches, as a JS scan finds it', async () => {
    const { memory, mine, mine2 } = await instantiate()
    const deployer = toHex(bytesFrom('d', 20))
    const initCodeHash = toHex(bytesFrom('i', 32))
    const seedSalt = bytesFrom('s', 32)
    new Uint8Array(memory.buffer).set(buildPreimageBlock({ deployer, initCodeHash, seedSalt }), 0)
    const start = BigInt(`0x${Buffer.from(seedSalt.subarray(3, 11)).reverse().toString('hex')}`)
    // Low byte of the address == 0x5a: mean 256 tries; compare with viem over the same range.
    const rule: SaltRule = { type: 'address-suffix', hex: '5a' }
    let expected = -1
    for (let index = 0; index < 5000 && expected < 0; index++) {
      const address = getContractAddress({
        opcode: 'CREATE2',
        from: deployer,
        salt: saltAt(seedSalt, index),
        bytecodeHash: initCodeHash,
      })
      if (addressSatisfies(address, rule)) expected = index
    }
    expect(expected).toBeGreaterThanOrEqual(0)
    const mask = BigInt.asIntN(64, 0xffn << 56n)
    const value = BigInt.asIntN(64, 0x5an << 56n)
    expect(mine(BigInt.asIntN(64, start), 5000, mask, value)).toBe(expected)
    expect(mine2(BigInt.asIntN(64, start), 5000, mask, value)).toBe(expected)
    // Odd ranges: the SIMD pass never reports the candidate just past the end.
    expect(mine2(BigInt.asIntN(64, start), expected, mask, value)).toBe(-1)
    expect(mine2(BigInt.asIntN(64, start), expected + 1, mask, value)).toBe(expected)
  })

  test('behavior: mine2 agrees with mine on many ranges and rules', async () => {
    const { memory, mine, mine2 } = await instantiate()
    const block = buildPreimageBlock({
      deployer: toHex(bytesFrom('d2', 20)),
      initCodeHash: toHex(bytesFrom('i2', 32)),
      seedSalt: bytesFrom('s2', 32),
    })
    new Uint8Array(memory.buffer).set(block, 0)
    for (let round = 0; round < 200; round++) {
      const start = BigInt.asIntN(64, BigInt(round) * 0x9e3779b97f4a7c15n)
      const shift = BigInt(8 * (round % 8))
      const mask = BigInt.asIntN(64, 0xffn << shift)
      const value = BigInt.asIntN(64, BigInt(round % 256) << shift)
      const count = 1 + ((round * 37) % 2000)
      expect(mine2(start, count, mask, value)).toBe(mine(start, count, mask, value))
    }
    expect(mine2(0n, 0, 0n, 0n)).toBe(-1)
  })
})

/** A search's answer without its cost (timing differs from run to run). */
const answerOf = ({ workMs: _workMs, ...answer }: MineSaltResult) => answer

describe('mineSalt on the pool', () => {
  let pool: MinerPool
  let single: MinerPool
  beforeAll(async () => {
    ;[pool, single] = await Promise.all([
      createMinerPool({ size: 2 }),
      createMinerPool({ size: 1 }),
    ])
  })
  afterAll(async () => {
    await Promise.all([pool.close(), single.close()])
  })

  const base = {
    deployer: '0xe2cE6ab80874Fa9Fa2aAE65D277Dd6B8e65C9De0' as Hex,
    initCodeHash: keccak256('0x1234'),
    maxIterations: 20_000_000,
    timeBudgetMs: 20_000,
  }
  const rules: SaltRule[] = [
    { type: 'address-suffix', hex: '8888' },
    { type: 'address-suffix', hex: 'b07' },
    { type: 'address-low-bits', bits: 14, value: '0x2a80' },
    { type: 'address-below', token: '0x4200000000000000000000000000000000000006' },
    { type: 'address-below', token: '0x0100000000000000000000000000000000000000' },
  ]

  test.each(rules)('behavior: %j is satisfied and viem agrees', async (rule) => {
    const result = await mineSalt(pool, {
      ...base,
      rule,
      seed: keccak256(toHex(JSON.stringify(rule))),
    })
    if (!result.ok) throw new Error(`not found: ${result.reason}`)
    const address = getContractAddress({
      opcode: 'CREATE2',
      from: base.deployer,
      salt: result.salt,
      bytecodeHash: base.initCodeHash,
    })
    expect(address).toBe(result.predictedAddress)
    expect(addressSatisfies(address, rule)).toBe(true)
  })

  test('behavior: deterministic whatever the pool size and batch size', async () => {
    const parameters = {
      ...base,
      rule: { type: 'address-suffix', hex: '7777' } as SaltRule,
      seed: keccak256('0xbeef'),
    }
    const two = await mineSalt(pool, parameters)
    const one = await mineSalt(single, { ...parameters, batchPerWorker: 1000 })
    expect(answerOf(one)).toEqual(answerOf(two))
    // And it is the first satisfying candidate: none before it passes.
    if (!two.ok) throw new Error('not found')
    const earlier = await mineSalt(pool, { ...parameters, maxIterations: two.iterations - 1 })
    expect(answerOf(earlier)).toEqual({
      ok: false,
      reason: 'iteration_cap',
      tried: two.iterations - 1,
    })
  })

  test('behavior: concurrent searches share the pool and each gets its own answer', async () => {
    const seeds = ['0x01', '0x02', '0x03', '0x04'].map((seed) => keccak256(seed as Hex))
    const rule: SaltRule = { type: 'address-suffix', hex: '888' }
    const together = await Promise.all(seeds.map((seed) => mineSalt(pool, { ...base, rule, seed })))
    for (const [index, seed] of seeds.entries()) {
      expect(answerOf(together[index]!)).toEqual(
        answerOf(await mineSalt(single, { ...base, rule, seed })),
      )
    }
  })

  test('behavior: the time budget ends an impossible search with a reason', async () => {
    const started = performance.now()
    const result = await mineSalt(pool, {
      ...base,
      rule: { type: 'address-suffix', hex: 'ffffffffffffffff' },
      seed: keccak256('0x05'),
      maxIterations: 2 ** 40,
      timeBudgetMs: 200,
    })
    expect(result).toMatchObject({ ok: false, reason: 'time_budget' })
    // What the search cost the pool: at least the budget's worth of one worker.
    expect(result.workMs).toBeGreaterThan(150)
    // The search ended on its budget, not on 2^40 iterations (hours): the
    // bound is wide because a loaded CI machine stretches 200 ms several times.
    expect(performance.now() - started).toBeLessThan(15_000)
  })
})
