import { describe, expect, it } from 'vitest'
import { createPriceOracle, memoryPriceStore, nextStoredPrice } from './price-oracle.ts'

const HOUR = 3_600_000

describe('the studio token price oracle', () => {
  it('takes a fall at once and lets a rise through only at the configured pace', () => {
    const stored = { priceMicroUsd: 1_000_000n, updatedAt: 0, observedAt: 0 }
    expect(nextStoredPrice(stored, 400_000n, HOUR, 1_000n).priceMicroUsd).toBe(400_000n)
    // A tenfold pump an hour later: +10 % an hour at most.
    expect(nextStoredPrice(stored, 10_000_000n, HOUR, 1_000n).priceMicroUsd).toBe(1_100_000n)
    expect(nextStoredPrice(stored, 10_000_000n, HOUR / 2, 1_000n).priceMicroUsd).toBe(1_050_000n)
    // A rise within the pace is taken as read.
    expect(nextStoredPrice(stored, 1_020_000n, HOUR, 1_000n).priceMicroUsd).toBe(1_020_000n)
  })

  it('reads the source at most once an hour, rises slowly, and goes to 0 once stale', async () => {
    let clock = 0
    let reads = 0
    let answer: bigint | Error = 1_000_000n
    const oracle = createPriceOracle({
      source: async () => {
        reads++
        if (answer instanceof Error) throw answer
        return answer
      },
      now: () => clock,
      maxRiseBpsPerHour: 1_000n,
      staleAfterMs: 6 * HOUR,
    })
    expect(await oracle.price()).toBe(1_000_000n)
    answer = 5_000_000n
    clock = 30 * 60_000
    expect(await oracle.price()).toBe(1_000_000n)
    expect(reads).toBe(1)
    clock = HOUR
    expect(await oracle.price()).toBe(1_100_000n)
    clock = 2 * HOUR
    expect(await oracle.price()).toBe(1_210_000n)
    // The source fails: the stored price stands for six hours after the last answer, then 0.
    answer = new Error('source down')
    clock = 5 * HOUR
    expect(await oracle.price()).toBe(1_210_000n)
    clock = 8 * HOUR + 1
    expect(await oracle.price()).toBe(0n)
    expect(reads).toBe(5)
    // Back: a fall is taken at once.
    answer = 900_000n
    clock = 9 * HOUR + 2
    expect(await oracle.price()).toBe(900_000n)
  })

  it('two oracles on one store (two replicas): one read an hour for both, the rise capped against the stored price', async () => {
    let clock = 0
    let reads = 0
    let answer = 100_000n
    const store = memoryPriceStore()
    const replica = () =>
      createPriceOracle({
        source: async () => {
          reads++
          return answer
        },
        now: () => clock,
        store,
      })
    const [a, b] = [replica(), replica()]
    expect(await a.price()).toBe(100_000n)
    expect(await b.price()).toBe(100_000n)
    answer = 275_000n
    clock = 30 * 60_000
    expect([await b.price(), await a.price()]).toEqual([100_000n, 100_000n])
    expect(reads).toBe(1)
    clock = HOUR
    expect([await b.price(), await a.price()]).toEqual([110_000n, 110_000n])
    expect(reads).toBe(2)
  })

  it('concurrent callers share one read', async () => {
    let reads = 0
    const oracle = createPriceOracle({
      source: async () => {
        reads++
        await new Promise((resolve) => setTimeout(resolve, 20))
        return 2_000_000n
      },
    })
    expect(await Promise.all([oracle.price(), oracle.price(), oracle.price()])).toEqual([
      2_000_000n,
      2_000_000n,
      2_000_000n,
    ])
    expect(reads).toBe(1)
  })
})
