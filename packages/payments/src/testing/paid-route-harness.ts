import { Mppx, tempo } from 'mppx/client'
import type { Address, PrivateKeyAccount, PublicClient } from 'viem'
import { decodeBase64Json, PAYMENT_REQUIRED_HEADER } from '../headers.ts'
import type { RequirementV2 } from '../x402/requirements.ts'
import { paymentSignatureHeader, xPaymentHeader } from './sign-authorization.ts'

/** The rails a payer may use: x402 v2 (`PAYMENT-SIGNATURE`), legacy v1 (`X-PAYMENT`), MPP (push, or pull where the route takes only pull). */
export type PayerRail = 'x402-v2' | 'x402-v1' | 'mpp'
export const PAYER_RAILS: readonly PayerRail[] = ['x402-v2', 'x402-v1', 'mpp']

/** The parts of a devnet a paying test client needs. */
export type PayingDevnet = {
  tempo?: { publicClient: PublicClient } | undefined
}

/** One thing to buy: the paid request and how to tell whether it was delivered. */
export type Purchase = {
  url: string
  body: string
  /** How many deliveries this purchase got (0 or 1 when all is well). */
  deliveries: () => Promise<number>
  /** USDC received by everyone this purchase pays, on the rail's chain (atomic units). */
  received: (rail: PayerRail) => Promise<bigint>
  /** What identifies the delivery in a 200 answer (a heartFileId, a match id). */
  identity: (answer: Record<string, unknown>) => unknown
  price: bigint
  /** The status of a served purchase (201 for a route that creates); 200 by default. */
  servedStatus?: number
  /** Sent with every request of the purchase (a route's own credential, e.g. `X-Venue-Credential`). */
  headers?: Record<string, string>
}

export type SentRequest = { status: number; json: Record<string, unknown>; headers: Headers }

export const send = async (
  purchase: Pick<Purchase, 'url' | 'body' | 'headers'>,
  headers: Record<string, string> = {},
): Promise<SentRequest> => {
  const response = await fetch(purchase.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...purchase.headers, ...headers },
    body: purchase.body,
  })
  const text = await response.text()
  let json: Record<string, unknown> = {}
  try {
    json = JSON.parse(text)
  } catch {}
  return { status: response.status, json, headers: response.headers }
}

/**
 * The MPP mode a payer uses for a challenge: push, unless the route takes
 * only pull (its `methodDetails.supportedModes`).
 */
export const mppModeOf = (challenge: Response): 'push' | 'pull' => {
  const header = challenge.headers.get('www-authenticate') ?? ''
  const encoded = /request="([^"]*)"/.exec(header)?.[1]
  if (!encoded) return 'push'
  const request = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as {
    methodDetails?: { supportedModes?: string[] }
  }
  const modes = request.methodDetails?.supportedModes ?? ['push']
  return modes.includes('push') ? 'push' : 'pull'
}

/** The Base (`eip155:8453`) requirement a 402 offers in its `PAYMENT-REQUIRED` header. */
export const baseRequirementOf = (challenge: { headers: Headers }): RequirementV2 => {
  const required = decodeBase64Json(challenge.headers.get(PAYMENT_REQUIRED_HEADER) ?? '') as {
    accepts?: RequirementV2[]
  }
  const requirement = required.accepts?.find((accept) => accept.network === 'eip155:8453')
  if (!requirement) throw new Error('no Base accept in the 402')
  return requirement
}

/**
 * Signs (x402, MPP pull) or broadcasts and credentials (MPP push) one
 * payment for a purchase, as an outside payer does from the 402; the
 * headers can be sent again to retry with the same payment.
 */
export const payFor = async (
  devnet: PayingDevnet,
  rail: PayerRail,
  purchase: Pick<Purchase, 'url' | 'body' | 'headers'>,
  account: PrivateKeyAccount,
): Promise<Record<string, string>> => {
  const bare = await fetch(purchase.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...purchase.headers },
    body: purchase.body,
  })
  if (bare.status !== 402)
    throw new Error(`expected a 402, got ${bare.status}: ${await bare.text()}`)
  if (rail === 'mpp') {
    const client = devnet.tempo?.publicClient
    if (!client) throw new Error('the devnet has no Tempo chain')
    const mppx = Mppx.create({
      polyfill: false,
      methods: [tempo.charge({ account, mode: mppModeOf(bare), getClient: () => client })],
    })
    return { authorization: await mppx.createCredential(bare) }
  }
  const requirement = baseRequirementOf(bare)
  return rail === 'x402-v2'
    ? { 'payment-signature': await paymentSignatureHeader(account, requirement) }
    : { 'x-payment': await xPaymentHeader(account, requirement) }
}

/** Retries with the same payment while the answer is a 503 (Retry-After), as a patient payer does. */
export const retryUntilSettled = async (
  purchase: Pick<Purchase, 'url' | 'body' | 'headers'>,
  headers: Record<string, string>,
  { attempts = 40, pauseMs = 250 } = {},
): Promise<SentRequest> => {
  let answer = await send(purchase, headers)
  for (let attempt = 1; attempt < attempts && answer.status === 503; attempt++) {
    if (!answer.headers.get('retry-after')) throw new Error('a 503 without Retry-After')
    await new Promise((resolve) => setTimeout(resolve, pauseMs))
    answer = await send(purchase, headers)
  }
  return answer
}

/** USDC balances summed over addresses, through a reader per chain. */
export const sumBalances = async (
  read: (address: Address) => Promise<bigint>,
  addresses: readonly Address[],
) => (await Promise.all(addresses.map(read))).reduce((sum, value) => sum + value, 0n)

/** `{ host, port }` of a URL, for a TCP proxy in front of it. */
export const hostPortOf = (url: string) => {
  const parsed = new URL(url)
  return { host: parsed.hostname, port: Number(parsed.port) }
}

/** The same URL through a TCP proxy listening at `proxy`. */
export const throughProxy = (proxy: { host: string; port: number }, url: string) => {
  const target = new URL(url)
  target.host = `${proxy.host}:${proxy.port}`
  return target.href
}
