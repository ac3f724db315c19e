import { Credential, Receipt } from 'mppx'
import { Mppx, tempo } from 'mppx/server'
import { type Client, formatUnits } from 'viem'
import type { MppAdapter } from '../charge.ts'
import { PaymentReason } from '../errors.ts'
import { PAYMENT_RECEIPT_HEADER, WWW_AUTHENTICATE_HEADER } from '../headers.ts'
import type { ReceiptStore } from '../receipt-store.ts'
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
   * fee: no fee payer, no key here).
   */
  modes?: Array<'push' | 'pull'>
}

const USDC_DECIMALS = 6

/**
 * MPP Tempo charges through mppx, push mode (the client broadcasts and sends
 * the hash). mppx checks amount, currency, recipient and splits on-chain and
 * keeps its own replay set per process; our receipt store makes the
 * transaction fulfil at most one request across every replica.
 */
export const createMppAdapter = (
  settings: MppSettings,
  { store }: { store: ReceiptStore },
): MppAdapter => {
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
  const options = (price: Price, resource: Resource) => ({
    amount: formatUnits(price.amount, USDC_DECIMALS),
    decimals: USDC_DECIMALS,
    description: resource.description,
    supportedModes: settings.modes ?? ['push'],
    ...(price.splits
      ? {
          splits: price.splits.map((split) => ({
            recipient: split.recipient,
            amount: formatUnits(split.amount, USDC_DECIMALS),
          })),
        }
      : {}),
  })
  const run = (request: Request, price: Price, resource: Resource) =>
    (mppx.charge as (options: unknown) => (request: Request) => Promise<MppxResult>)(
      options(price, resource),
    )(request)

  return {
    challenge: async (request, price, resource) => {
      const headers = new Headers(request.headers)
      headers.delete('authorization')
      const result = await run(
        new Request(request.url, { method: request.method, headers }),
        price,
        resource,
      )
      const value =
        result.status === 402 ? result.challenge.headers.get(WWW_AUTHENTICATE_HEADER) : null
      if (!value) throw new Error('mppx issued no challenge')
      return value
    },
    verify: async (request, price, resource) => {
      let result: MppxResult
      try {
        result = await run(request, price, resource)
      } catch (error) {
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: `credential rejected: ${(error as Error).message}`,
        }
      }
      if (result.status === 402) {
        const problem = (await result.challenge.json().catch(() => ({}))) as {
          detail?: string
          title?: string
        }
        return {
          ok: false,
          reason: PaymentReason.mppRejected,
          detail: problem.detail ?? problem.title ?? 'credential rejected',
        }
      }
      const header = result.withReceipt(new Response(null)).headers.get(PAYMENT_RECEIPT_HEADER)
      if (!header)
        return { ok: false, reason: PaymentReason.mppRejected, detail: 'no receipt from mppx' }
      const receipt = Receipt.deserialize(header)
      const reference = `mpp:${settings.chainId}:${receipt.reference.toLowerCase()}`
      if (!(await store.claim(reference))) {
        return {
          ok: false,
          reason: PaymentReason.alreadyUsed,
          detail: 'this payment was already used',
        }
      }
      const paid = {
        rail: 'mpp' as const,
        network: `eip155:${settings.chainId}`,
        payer: payerOf(request.headers.get('authorization')!),
        amount: price.amount.toString(),
        transaction: receipt.reference,
        reference,
      }
      await store.complete(reference, paid)
      return { ok: true, receipt: paid, headers: { [PAYMENT_RECEIPT_HEADER]: header } }
    },
  }
}

type MppxResult =
  | { status: 402; challenge: Response }
  | { status: 200; withReceipt: (response: Response) => Response }

/** The payer named by the credential's `source` (`did:pkh:eip155:<chain>:<address>`), if any. */
const payerOf = (authorization: string) => {
  try {
    const source = Credential.deserialize(authorization).source ?? ''
    return /0x[0-9a-fA-F]{40}$/.exec(source)?.[0] ?? ''
  } catch {
    return ''
  }
}
