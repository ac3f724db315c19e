import { jsonDepthExceeds } from '@agents/service-kit'
import { Credential, Receipt } from 'mppx'
import { Mppx, tempo } from 'mppx/server'
import { type Address, type Client, formatUnits, getAddress, type Hex, keccak256 } from 'viem'
import { Transaction } from 'viem/tempo'
import type { MppProof } from '../chain/settlement-reader.ts'
import { PaymentReason } from '../errors.ts'
import { PAYMENT_RECEIPT_HEADER, WWW_AUTHENTICATE_HEADER } from '../headers.ts'
import type { SettleOutcome } from '../settle-outcome.ts'
import type { Price, Resource } from '../types.ts'

export type MppSettings = {
  /** Signs challenge ids (HMAC): any replica can verify a challenge another issued. */
  secretKey: string
  realm: string
  /** Tempo mainnet is 4217. */
  chainId: number
  /** The TIP-20 USDC (6 decimals) the charge is paid in. */
  currency: `0x${string}`
  recipient: `0x${string}`
  /** A viem client for the Tempo chain: reads pushed transactions, broadcasts pulled ones. */
  getClient: () => Client
  /**
   * Default push: the payer broadcasts and sends the hash. Pull makes this
   * server broadcast the payer-signed transaction (the payer still pays the
   * fee: no fee payer, no key here). A route may choose its own (`mppModes`
   * of `sell`).
   */
  modes?: MppModes
}

/** How an MPP charge may be paid: `push` (the payer broadcasts) and/or `pull` (this server does). */
export type MppModes = Array<'push' | 'pull'>

/** An MPP credential read without any network call: its reference and what the chain is asked. */
export type MppAttempt = {
  rail: 'mpp'
  reference: string
  payer: string
  network: string
  payTo: string
  proof: MppProof
}

/** MPP behind an interface: `createMppAdapter` implements it with mppx. */
export type MppAdapter = {
  /** The `WWW-Authenticate: Payment ...` value for this price. */
  challenge: (
    request: Request,
    price: Price,
    resource: Resource,
    modes?: MppModes,
  ) => Promise<string>
  /**
   * Reads the credential offline. A pull credential's payer is the signer
   * recovered from its transaction (proof of wallet control); a push
   * credential's is the `source` it claims. A credential of a mode the
   * route does not take is refused here, before anything is recorded.
   */
  read: (
    request: Request,
    price: Price,
    modes?: MppModes,
  ) => { ok: true; attempt: MppAttempt } | { ok: false; reason: PaymentReason; detail: string }
  /** Verifies the credential through mppx (push: reads the payer's transaction; pull: broadcasts it). */
  settle: (
    request: Request,
    price: Price,
    resource: Resource,
    modes?: MppModes,
  ) => Promise<SettleOutcome>
}

const USDC_DECIMALS = 6

const base64urlText = (value: string) => Buffer.from(value, 'base64url').toString('utf8')

/**
 * Whether a `Payment` credential, or the challenge request inside it (base64url
 * JSON again), nests deeper than a request body may: mppx walks both
 * (deserialising, and canonicalising the request to check the challenge's
 * HMAC), and the header is the client's.
 */
const nestsTooDeep = (authorization: string) => {
  const token = /^Payment\s+(\S+)$/i.exec(authorization)?.[1]
  if (!token) return false
  const text = base64urlText(token)
  if (jsonDepthExceeds(text)) return true
  try {
    const request = (JSON.parse(text) as { challenge?: { request?: unknown } }).challenge?.request
    return typeof request === 'string' && jsonDepthExceeds(base64urlText(request))
  } catch {
    return false
  }
}

/**
 * MPP Tempo charges through mppx, push mode (the client broadcasts and sends
 * the hash). mppx checks amount, currency, recipient, splits and the
 * challenge on-chain and keeps its own replay set per process; the payment
 * ledger makes the transaction fulfil at most one request across every
 * replica, and answers a retry without asking mppx again.
 */
export const createMppAdapter = (settings: MppSettings): MppAdapter => {
  const mppx = Mppx.create({
    methods: [
      tempo.charge({
        recipient: settings.recipient,
        currency: settings.currency,
        chainId: settings.chainId,
        getClient: settings.getClient,
      }),
    ],
    secretKey: settings.secretKey,
    realm: settings.realm,
  })
  const modesOf = (modes: MppModes | undefined) => modes ?? settings.modes ?? ['push']
  const options = (price: Price, resource: Resource, modes: MppModes | undefined) => ({
    amount: formatUnits(price.amount, USDC_DECIMALS),
    decimals: USDC_DECIMALS,
    description: resource.description,
    supportedModes: modesOf(modes),
    ...(price.splits
      ? {
          splits: price.splits.map((split) => ({
            recipient: split.recipient,
            amount: formatUnits(split.amount, USDC_DECIMALS),
          })),
        }
      : {}),
  })
  const run = (request: Request, price: Price, resource: Resource, modes?: MppModes) =>
    (mppx.charge as (options: unknown) => (request: Request) => Promise<MppxResult>)(
      options(price, resource, modes),
    )(request)

  return {
    challenge: async (request, price, resource, modes) => {
      const headers = new Headers(request.headers)
      for (const name of ['authorization', 'host', 'x-forwarded-host', 'forwarded'])
        headers.delete(name)
      // mppx reads the request's URL (the realm, when none is set): it is given the
      // resource's URL, built on the service's base URL, never the request's own (its Host).
      const result = await run(
        new Request(resource.url, { method: request.method, headers }),
        price,
        resource,
        modes,
      )
      const value =
        result.status === 402 ? result.challenge.headers.get(WWW_AUTHENTICATE_HEADER) : null
      if (!value) throw new Error('mppx issued no challenge')
      return value
    },
    read: (request, price, modes) => {
      const authorization = request.headers.get('authorization') ?? ''
      if (nestsTooDeep(authorization))
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: 'credential rejected: nested deeper than a request body may be',
        }
      let credential: ReturnType<typeof Credential.deserialize>
      try {
        credential = Credential.deserialize(authorization)
      } catch (error) {
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: `credential rejected: ${(error as Error).message}`,
        }
      }
      const payload = credential.payload as { type?: string; hash?: string; signature?: string }
      const mode = payload.type === 'transaction' ? 'pull' : 'push'
      if (!modesOf(modes).includes(mode))
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: `this route takes ${modesOf(modes).join(' or ')} payments only, not ${mode}`,
        }
      // Push names the payer's transaction; pull carries it signed (its hash before broadcast).
      const hash =
        payload.type === 'hash' && /^0x[0-9a-fA-F]{64}$/.test(payload.hash ?? '')
          ? (payload.hash as Hex)
          : payload.type === 'transaction' && /^0x[0-9a-fA-F]+$/.test(payload.signature ?? '')
            ? keccak256(payload.signature as Hex)
            : undefined
      if (!hash)
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: 'credential names no transaction',
        }
      const signer = mode === 'pull' ? signerOf(payload.signature as Hex) : undefined
      if (mode === 'pull' && !signer)
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: 'the transaction is not a signed Tempo transaction',
        }
      const splitTotal = (price.splits ?? []).reduce((sum, split) => sum + split.amount, 0n)
      return {
        ok: true,
        attempt: {
          rail: 'mpp',
          reference: `mpp:${settings.chainId}:${hash.toLowerCase()}`,
          payer: signer ?? /0x[0-9a-fA-F]{40}$/.exec(credential.source ?? '')?.[0] ?? '',
          network: `eip155:${settings.chainId}`,
          payTo: settings.recipient,
          proof: {
            rail: 'mpp',
            chainId: settings.chainId,
            hash,
            ...(mode === 'pull' ? { signed: payload.signature as Hex } : {}),
            currency: settings.currency,
            transfers: [
              { to: settings.recipient, amount: (price.amount - splitTotal).toString() },
              ...(price.splits ?? []).map((split) => ({
                to: split.recipient as Address,
                amount: split.amount.toString(),
              })),
            ],
          },
        },
      }
    },
    settle: async (request, price, resource, modes) => {
      let result: MppxResult
      try {
        result = await run(request, price, resource, modes)
      } catch (error) {
        // mppx could not finish (the chain did not answer): the transaction may well be there.
        return { kind: 'unknown', detail: `mppx failed: ${(error as Error).message}` }
      }
      if (result.status === 402) {
        const problem = (await result.challenge.json().catch(() => ({}))) as {
          type?: string
          detail?: string
          title?: string
        }
        // mppx turns a failed chain read into an internal error: the transaction may well be there.
        if (problem.type?.endsWith('/internal-payment-error'))
          return { kind: 'unknown', detail: 'mppx could not read the transaction' }
        return {
          kind: 'refused',
          reason: PaymentReason.mppRejected,
          detail: problem.detail ?? problem.title ?? 'credential rejected',
        }
      }
      const header = result.withReceipt(new Response(null)).headers.get(PAYMENT_RECEIPT_HEADER)
      if (!header) return { kind: 'unknown', detail: 'no receipt from mppx' }
      const receipt = Receipt.deserialize(header)
      return {
        kind: 'settled',
        transaction: receipt.reference,
        payer: '',
        header: [PAYMENT_RECEIPT_HEADER, header],
      }
    },
  }
}

/** Who signed a serialized Tempo transaction (recovered from its signature), or undefined. */
const signerOf = (serialized: Hex): string | undefined => {
  try {
    const transaction = Transaction.deserialize(serialized as never) as { from?: string }
    return transaction.from && /^0x[0-9a-fA-F]{40}$/.test(transaction.from)
      ? getAddress(transaction.from)
      : undefined
  } catch {
    return undefined
  }
}

type MppxResult =
  | { status: 402; challenge: Response }
  | { status: 200; withReceipt: (response: Response) => Response }
