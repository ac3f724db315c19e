import type { PrivateKeyAccount } from 'viem'
import { expect, it } from 'vitest'
import { decodeBase64Json } from '../headers.ts'
import {
  type PayerRail,
  type Purchase,
  payFor,
  retryUntilSettled,
  type SentRequest,
  send,
} from './paid-route-harness.ts'
import type { SpawnedService } from './spawn-service.ts'

/** A switchable TCP path (a fault proxy) in front of a dependency. */
export type FaultSwitch = { cut: () => void; restore: () => void }

/** The devnet facilitator's fault switches (see @agents/devnet's FacilitatorBehavior). */
export type FacilitatorSwitches = {
  setBehavior: (behavior: never) => void
  settlements: () => number
}

/** Everything the exactly-once suite needs from one running paid service. */
export type ExactlyOnceTarget = {
  devnet: Parameters<typeof payFor>[0] & { facilitator: FacilitatorSwitches }
  payer: PrivateKeyAccount
  /** A fresh thing to buy from the running service. */
  buy: () => Promise<Purchase>
  /** One reconciler pass in the running service. */
  reconcileNow: () => Promise<unknown>
  /** The service's `/health`: its `payments` block is checked. */
  healthUrl: () => string
  /** Fault proxies in front of the service's Base RPC, Tempo RPC and (PostgreSQL only) database. */
  faults: { baseRpc: FaultSwitch; tempoRpc: FaultSwitch; database?: FaultSwitch | undefined }
}

type WithDevnet = Pick<ExactlyOnceTarget, 'devnet'>

type Behavior =
  | 'normal'
  | 'down'
  | { settle: 'down' | 'reset' | 'error' }
  | { settle: 'late'; delayMs: number }
  | { settle: 'hold'; until: Promise<unknown>; onSettled?: () => void }

const behave = (target: WithDevnet, behavior: Behavior) =>
  target.devnet.facilitator.setBehavior(behavior as never)

/**
 * What every scenario ends with: served if and only if charged, the money
 * moved at most once, and a retry of the same payment gets the same answer.
 */
const expectServedOnce = async (
  target: WithDevnet,
  rail: PayerRail,
  purchase: Purchase,
  before: { received: bigint; settlements: number },
  headers: Record<string, string>,
  final: SentRequest,
) => {
  const served = purchase.servedStatus ?? 200
  expect(final.status, JSON.stringify(final.json)).toBe(served)
  expect(await purchase.deliveries()).toBe(1)
  expect((await purchase.received(rail)) - before.received).toBe(purchase.price)
  if (rail !== 'mpp')
    expect(target.devnet.facilitator.settlements() - before.settlements).toBeLessThanOrEqual(1)
  const again = await send(purchase, headers)
  expect(again.status).toBe(served)
  expect(purchase.identity(again.json)).toEqual(purchase.identity(final.json))
  // The rail's receipt header names the settling transaction, the same on every answer.
  const receipt = (answer: SentRequest) =>
    answer.headers.get(RECEIPT_HEADERS[rail]) ?? `no ${RECEIPT_HEADERS[rail]} header`
  expect(receipt(again)).toBe(receipt(final))
  if (rail !== 'mpp')
    expect(decodeBase64Json(receipt(final))).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
  expect(await purchase.deliveries()).toBe(1)
}

const RECEIPT_HEADERS: Record<PayerRail, string> = {
  'x402-v2': 'payment-response',
  'x402-v1': 'x-payment-response',
  mpp: 'payment-receipt',
}

const expectPending = (answer: SentRequest) => {
  expect(answer.status, JSON.stringify(answer.json)).toBe(503)
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0)
  expect(answer.json.reference).toMatch(/^(x402|mpp):/)
}

const snapshot = async (target: WithDevnet, rail: PayerRail, purchase: Purchase) => ({
  received: await purchase.received(rail),
  settlements: target.devnet.facilitator.settlements(),
})

/**
 * The faults of "Paid requests deliver exactly once", as `it` blocks for
 * one rail of one paid route: lost settle answers (reset, late, 5xx), the
 * facilitator down before settling, the chain unreadable, the database
 * stopped between settlement and the write, and concurrent retries of an
 * unknown payment. Call it inside a `describe` whose hooks start the
 * service; `target()` is read when each test runs.
 */
export const exactlyOnceScenarios = (
  rail: PayerRail,
  target: () => ExactlyOnceTarget,
  /** Whether `faults.database` exists (a PostgreSQL server behind a proxy; PGlite runs in-process). */
  { databaseFaults }: { databaseFaults: boolean },
) => {
  const x402 = rail !== 'mpp'
  const lost: Array<[string, Behavior]> = [
    ['the connection resets after the transfer', { settle: 'reset' }],
    ['the answer comes after the timeout', { settle: 'late', delayMs: 2_500 }],
    ['a 5xx after the transfer', { settle: 'error' }],
  ]
  for (const [fault, behavior] of lost) {
    it.runIf(x402)(`settle answer lost (${fault}): served once, charged once`, async () => {
      const t = target()
      const purchase = await t.buy()
      const before = await snapshot(t, rail, purchase)
      const headers = await payFor(t.devnet, rail, purchase, t.payer)
      behave(t, behavior)
      let first: SentRequest
      try {
        first = await send(purchase, headers)
      } finally {
        behave(t, 'normal')
      }
      // The chain shows the transfer: served at once, or a 503 to retry; never a 402.
      expect([purchase.servedStatus ?? 200, 503]).toContain(first.status)
      if (first.status === 503) expectPending(first)
      const final = await retryUntilSettled(purchase, headers)
      await expectServedOnce(t, rail, purchase, before, headers, final)
    })
  }

  it('the same payment presented for another purchase is refused and charges nothing more', async () => {
    const t = target()
    const first = await t.buy()
    const before = await snapshot(t, rail, first)
    const headers = await payFor(t.devnet, rail, first, t.payer)
    await expectServedOnce(t, rail, first, before, headers, await send(first, headers))
    const other = await t.buy()
    const otherBefore = await other.received(rail)
    const reused = await send(other, headers)
    expect(reused.status).toBe(402)
    expect(await other.deliveries()).toBe(0)
    expect(await other.received(rail)).toBe(otherBefore)
    expect((await first.received(rail)) - before.received).toBe(first.price)
  })

  it.runIf(x402)(
    'facilitator down before settling: not served, not charged, the same payment serves later',
    async () => {
      const t = target()
      const purchase = await t.buy()
      const before = await snapshot(t, rail, purchase)
      const headers = await payFor(t.devnet, rail, purchase, t.payer)
      behave(t, 'down')
      const refused = await send(purchase, headers).finally(() => behave(t, 'normal'))
      expect(refused.status).toBe(402)
      expect(refused.json.reason).toBe('facilitator_unavailable')
      behave(t, { settle: 'down' })
      const deferred = await send(purchase, headers).finally(() => behave(t, 'normal'))
      expectPending(deferred)
      expect(await purchase.deliveries()).toBe(0)
      expect(await purchase.received(rail)).toBe(before.received)
      const final = await retryUntilSettled(purchase, headers)
      await expectServedOnce(t, rail, purchase, before, headers, final)
    },
  )

  /**
   * Pays with the chain unreadable by the service (and, on x402, the settle
   * answer lost after the transfer): the outcome is `unknown`, a 503.
   */
  const payIntoUnknown = async (t: ExactlyOnceTarget) => {
    const purchase = await t.buy()
    const before = await snapshot(t, rail, purchase)
    const headers = await payFor(t.devnet, rail, purchase, t.payer)
    const chain = x402 ? t.faults.baseRpc : t.faults.tempoRpc
    chain.cut()
    if (x402) behave(t, { settle: 'reset' })
    try {
      expectPending(await send(purchase, headers))
    } finally {
      behave(t, 'normal')
      chain.restore()
    }
    expect(await purchase.deliveries()).toBe(0)
    return { purchase, before, headers }
  }

  it('the chain unreadable when the outcome is unknown: 503, then the reconciler and the retry complete it once', async () => {
    const t = target()
    const { purchase, before, headers } = await payIntoUnknown(t)
    // Charged, not yet served: the reconciler finds the settlement on-chain and delivers.
    await t.reconcileNow()
    expect(await purchase.deliveries()).toBe(1)
    const final = await send(purchase, headers)
    await expectServedOnce(t, rail, purchase, before, headers, final)
  })

  it('two concurrent retries of an unknown payment deliver once', async () => {
    const t = target()
    const { purchase, before, headers } = await payIntoUnknown(t)
    const [one, two] = await Promise.all([
      retryUntilSettled(purchase, headers),
      retryUntilSettled(purchase, headers),
    ])
    expect(purchase.identity(one.json)).toEqual(purchase.identity(two.json))
    await expectServedOnce(t, rail, purchase, before, headers, one)
  })

  it.runIf(x402 && databaseFaults)(
    'database stopped between the settlement and the write: 503, then served once',
    async () => {
      const t = target()
      const database = t.faults.database!
      const purchase = await t.buy()
      const before = await snapshot(t, rail, purchase)
      const headers = await payFor(t.devnet, rail, purchase, t.payer)
      let release!: () => void
      behave(t, {
        settle: 'hold',
        until: new Promise<void>((resolve) => {
          release = resolve
        }),
        onSettled: () => {
          database.cut()
          release()
        },
      })
      let first: SentRequest
      try {
        first = await send(purchase, headers)
      } finally {
        behave(t, 'normal')
        database.restore()
      }
      expectPending(first)
      const final = await retryUntilSettled(purchase, headers)
      await expectServedOnce(t, rail, purchase, before, headers, final)
    },
  )

  it.runIf(!x402 && databaseFaults)(
    'database down when the pushed payment arrives: 503, then served once',
    async () => {
      const t = target()
      const database = t.faults.database!
      const purchase = await t.buy()
      const before = await snapshot(t, rail, purchase)
      const headers = await payFor(t.devnet, rail, purchase, t.payer)
      database.cut()
      let first: SentRequest
      try {
        first = await send(purchase, headers)
      } finally {
        database.restore()
      }
      // Before anything is recorded the route may fail earlier (reading what is sold): a 503 either way.
      expect(first.status, JSON.stringify(first.json)).toBe(503)
      expect(Number(first.headers.get('retry-after'))).toBeGreaterThan(0)
      const final = await retryUntilSettled(purchase, headers)
      await expectServedOnce(t, rail, purchase, before, headers, final)
    },
  )
}

/** A paid service that runs in a child process, so a test can SIGKILL it mid-payment. */
export type ChildServiceTarget = Omit<ExactlyOnceTarget, 'buy' | 'reconcileNow' | 'healthUrl'> & {
  /** Starts (or restarts, on the same database and port) the service in a child process. */
  start: () => Promise<SpawnedService>
  buy: (serviceUrl: string) => Promise<Purchase>
}

/**
 * The process killed between the settlement and the write, then restarted
 * on the same database: the restarted service's reconciler completes the
 * delivery on its own, and the payer's retry gets the result.
 */
export const killScenario = (rail: PayerRail, target: () => ChildServiceTarget) => {
  const x402 = rail !== 'mpp'
  it(`SIGKILL between the settlement and the write, then a restart: delivered once by the reconciler (${rail})`, async () => {
    const t = target()
    let service = await t.start()
    try {
      const purchase = await t.buy(service.url)
      const before = await snapshot(t, rail, purchase)
      const headers = await payFor(t.devnet, rail, purchase, t.payer)
      let first: SentRequest | undefined
      if (x402) {
        let release!: () => void
        const killed = new Promise<void>((resolve) => {
          behave(t, {
            settle: 'hold',
            until: new Promise<void>((done) => {
              release = done
            }),
            onSettled: () => {
              service.kill().then(() => {
                release()
                resolve()
              })
            },
          })
        })
        first = await send(purchase, headers).catch(() => undefined)
        await killed
        behave(t, 'normal')
      } else {
        // MPP push: the payer's transfer is on-chain before the request; the chain read is cut,
        // the service answers 503 with the payment unresolved, and dies.
        t.faults.tempoRpc.cut()
        first = await send(purchase, headers).finally(() => t.faults.tempoRpc.restore())
        expectPending(first)
        await service.kill()
      }
      expect(first?.status).not.toBe(purchase.servedStatus ?? 200)
      expect(await purchase.deliveries()).toBe(0)
      service = await t.start()
      // No retry yet: the restarted service's reconciler finds the payment and delivers.
      for (let waited = 0; waited < 20_000 && (await purchase.deliveries()) === 0; waited += 200)
        await new Promise((resolve) => setTimeout(resolve, 200))
      expect(await purchase.deliveries()).toBe(1)
      const final = await retryUntilSettled(purchase, headers)
      await expectServedOnce(t, rail, purchase, before, headers, final)
    } finally {
      await service.stop()
    }
  }, 90_000) // two service processes start: up to 24 s in all on a slow day, near the default 30 s
}

/**
 * `/health` names the payment dependencies: the facilitator and each chain
 * degrade the service (200, `status: "degraded"`), never take it down; a
 * payment whose outcome is unknown is counted until it is resolved.
 */
export const paymentsHealthScenario = (target: () => ExactlyOnceTarget) => {
  it('GET /health reports the facilitator, the chains and the unresolved payments', async () => {
    const t = target()
    const health = async () => {
      const response = await fetch(t.healthUrl())
      return { http: response.status, ...((await response.json()) as { payments: unknown }) }
    }
    expect((await health()).payments).toEqual({
      status: 'ok',
      facilitator: 'ok',
      chains: {
        base: { ok: true, block: expect.any(String) },
        tempo: { ok: true, block: expect.any(String) },
      },
      unresolvedPayments: 0,
    })
    behave(t, 'down')
    t.faults.baseRpc.cut()
    try {
      const degraded = await health()
      expect(degraded.http).toBe(200)
      expect(degraded.payments).toMatchObject({
        status: 'degraded',
        facilitator: 'unavailable',
        chains: { base: { ok: false }, tempo: { ok: true } },
      })
    } finally {
      behave(t, 'normal')
      t.faults.baseRpc.restore()
    }
    // An MPP payment whose outcome is unknown is counted until the reconciler resolves it.
    const purchase = await t.buy()
    const headers = await payFor(t.devnet, 'mpp', purchase, t.payer)
    t.faults.tempoRpc.cut()
    try {
      expect((await send(purchase, headers)).status).toBe(503)
      expect((await health()).payments).toMatchObject({ unresolvedPayments: 1 })
    } finally {
      t.faults.tempoRpc.restore()
    }
    await t.reconcileNow()
    expect((await health()).payments).toMatchObject({ unresolvedPayments: 0 })
  })
}
