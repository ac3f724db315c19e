import { getAddress, isAddressEqual } from 'viem'
import { z } from 'zod'

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)

/** The fields of the hub's public offer view the seller command reads. */
export const HubOffer = z.looseObject({
  id: z.string(),
  status: z.string(),
  payTo: Address,
  model: z.string(),
  feeBps: z.number().int().min(0).max(10_000),
  splitAddress: Address,
  /** Not published by the hub today; read when it is. */
  feeRecipient: Address.optional(),
})
export type HubOffer = z.infer<typeof HubOffer>

const Page = z.object({ offers: z.array(z.unknown()) })
const PAGE = 200
/** The hub refuses offsets past 10,000. */
const MAX_OFFSET = 10_000

/**
 * Every offer of `payTo` in the hub's public book (`GET /v1/offers?status=all`,
 * paged), whatever its state: a filled or expired offer's split still holds
 * what its buyers paid. Offers the view does not parse are skipped.
 *
 * @example await getSellerOffers({ fetch }, { hubUrl: 'https://hub.example', payTo })
 */
export const getSellerOffers = async (
  { fetch: fetchImpl = globalThis.fetch }: { fetch?: typeof fetch },
  { hubUrl, payTo }: { hubUrl: string; payTo: string },
): Promise<HubOffer[]> => {
  const seller = getAddress(payTo)
  const found: HubOffer[] = []
  for (let offset = 0; offset <= MAX_OFFSET; offset += PAGE) {
    const url = new URL('/v1/offers', hubUrl)
    url.search = new URLSearchParams({
      status: 'all',
      limit: String(PAGE),
      offset: String(offset),
    }).toString()
    const response = await fetchImpl(url, { headers: { accept: 'application/json' } })
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`)
    const { offers } = Page.parse(await response.json())
    for (const raw of offers) {
      const offer = HubOffer.safeParse(raw)
      if (offer.success && isAddressEqual(offer.data.payTo as `0x${string}`, seller))
        found.push(offer.data)
    }
    if (offers.length < PAGE) break
  }
  return found
}
