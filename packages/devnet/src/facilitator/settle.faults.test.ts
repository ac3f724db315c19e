import { setTimeout as sleep } from 'node:timers/promises'
import { FacilitatorTimeoutError, HTTPFacilitatorClient } from '@x402/core/server'
import type { SettleResponse } from '@x402/core/types'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { type Devnet, startDevnet } from '../start-devnet.ts'
import { type SettleBody, signTestPayment } from './sign-test-payment.ts'

let devnet: Devnet

beforeAll(async () => {
  devnet = await startDevnet({ tempo: false })
})

afterEach(() => devnet.facilitator.setBehavior('normal'))

afterAll(async () => {
  await devnet?.stop()
})

const PRICE = 10_000n

/** A fresh x402 v2 `exact` payment (new EIP-3009 nonce) of PRICE from payer to payee. */
const signPayment = () => signTestPayment(devnet, PRICE)

const post = (path: 'verify' | 'settle', body: SettleBody) =>
  fetch(`${devnet.facilitator.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** What a resource server talks to the facilitator with. */
const facilitatorClient = (timeoutMs?: number) =>
  new HTTPFacilitatorClient({ url: devnet.facilitator.url, ...(timeoutMs && { timeoutMs }) })

type Ledger = { received: bigint; settlements: number }

const ledger = async (): Promise<Ledger> => ({
  received: await devnet.usdcBalance(devnet.accounts.payee),
  settlements: devnet.facilitator.settlements(),
})

/** What moved since `before`: USDC into the payee, and settlements that transferred. */
const movedSince = async (before: Ledger): Promise<Ledger> => {
  const now = await ledger()
  return {
    received: now.received - before.received,
    settlements: now.settlements - before.settlements,
  }
}

const once = { received: PRICE, settlements: 1 }
const nothing = { received: 0n, settlements: 0 }

describe('facilitator settle faults', () => {
  test('normal: settlements() counts transfers, not a refused replay', async () => {
    const body = await signPayment()
    const before = await ledger()

    const first = await post('settle', body)
    const replay = await post('settle', body)

    expect(first.status).toBe(200)
    expect(await first.json()).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(await replay.json()).toMatchObject({ success: false })
    expect(await movedSince(before)).toEqual(once)
  })

  test("{ settle: 'down' }: /verify answers, /settle answers 503 and nothing moves", async () => {
    const body = await signPayment()
    const before = await ledger()
    devnet.facilitator.setBehavior({ settle: 'down' })

    const verified = await post('verify', body)
    const settled = await post('settle', body)

    expect(verified.status).toBe(200)
    expect(await verified.json()).toMatchObject({ isValid: true })
    expect(settled.status).toBe(503)
    expect(await settled.json()).toEqual({
      error: 'facilitator is down before settle (devnet behavior)',
    })
    await expect(
      facilitatorClient().settle(body.paymentPayload, body.paymentRequirements),
    ).rejects.toThrow()
    expect(await movedSince(before)).toEqual(nothing)
    // The authorization was never used: the same payment settles once the facilitator is back.
    devnet.facilitator.setBehavior('normal')
    expect(await (await post('settle', body)).json()).toMatchObject({ success: true })
    expect(await movedSince(before)).toEqual(once)
  })

  test("{ settle: 'reset' }: the transfer happens, then the connection resets with no answer", async () => {
    const body = await signPayment()
    const before = await ledger()
    devnet.facilitator.setBehavior({ settle: 'reset' })

    const error = await post('settle', body).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )

    expect(error).toBeInstanceOf(TypeError)
    expect((error as TypeError).cause).toMatchObject({ code: 'ECONNRESET' })
    expect(await movedSince(before)).toEqual(once)
    // The facilitator itself lives on: other routes still answer.
    expect((await fetch(`${devnet.facilitator.url}/supported`)).status).toBe(200)
  })

  test("{ settle: 'late' }: a caller's timeout expires though the transfer happened", async () => {
    const body = await signPayment()
    const before = await ledger()
    devnet.facilitator.setBehavior({ settle: 'late', delayMs: 1_500 })

    const settling = facilitatorClient(500).settle(body.paymentPayload, body.paymentRequirements)

    await expect(settling).rejects.toBeInstanceOf(FacilitatorTimeoutError)
    await vi.waitFor(async () => expect(await movedSince(before)).toEqual(once))
  })

  test("{ settle: 'late' }: the true answer arrives only after delayMs", async () => {
    const body = await signPayment()
    const before = await ledger()
    devnet.facilitator.setBehavior({ settle: 'late', delayMs: 1_500 })
    const started = performance.now()
    let answered = false

    const answer = post('settle', body).then((response) => {
      answered = true
      return response
    })

    await vi.waitFor(async () => expect(await movedSince(before)).toEqual(once), { timeout: 5_000 })
    expect(answered).toBe(false)
    const response = await answer
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_490)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ success: true, network: 'eip155:8453' })
    expect(await movedSince(before)).toEqual(once)
  })

  test("{ settle: 'error' }: every settle transfers, then answers 500 { error: 'internal' }", async () => {
    const bodies = [await signPayment(), await signPayment()]
    const before = await ledger()
    devnet.facilitator.setBehavior({ settle: 'error' })

    const responses = await Promise.all(bodies.map((body) => post('settle', body)))

    for (const response of responses) {
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({ error: 'internal' })
    }
    expect(await movedSince(before)).toEqual({ received: 2n * PRICE, settlements: 2 })
  })

  test("{ settle: 'hold' }: onSettled fires after the transfer; the answer waits for until", async () => {
    const body = await signPayment()
    const before = await ledger()
    let release = () => {}
    const until = new Promise<void>((resolve) => {
      release = resolve
    })
    const held = new Promise<SettleResponse>((onSettled) => {
      devnet.facilitator.setBehavior({ settle: 'hold', until, onSettled })
    })
    let answered = false

    const answer = post('settle', body).then((response) => {
      answered = true
      return response
    })

    const settlement = await held
    expect(settlement).toMatchObject({ success: true })
    expect(await movedSince(before)).toEqual(once)
    await sleep(300)
    expect(answered).toBe(false)
    release()
    const response = await answer
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual(settlement)
    expect(await movedSince(before)).toEqual(once)
  })
})
