import type { Request } from 'autocannon'

/** What the abusive client sends: the cheapest write to abuse on each service. */
export type FloodKind = 'venue-personas' | 'rail-offers' | 'router-salts'

const FLOOD_PAYTO = '0x00000000000000000000000000000000000000f1'

/**
 * The request autocannon repeats for `kind`, with a fresh body each time
 * (`tag` keeps one run's handles and names apart from another's):
 * - venue: an anonymous persona (no credential, no owner) with a fresh handle;
 * - rail: an offer from one payTo address for the agent's model, priced above
 *   what the agent pays, so it only fills the book;
 * - router: `get_sign_payload` for pad `flap` with a fresh name, so each one
 *   mines a new salt (the miner's cache never hits).
 */
export const floodRequest = (kind: FloodKind, tag: string, model: string): Request => {
  let n = 0
  const next = () => `${tag}-${++n}`
  const post = (path: string, body: () => unknown): Request => ({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }),
  })
  switch (kind) {
    case 'venue-personas':
      return post('/api/personas', () => ({
        handle: `flood-${next()}`,
        model: 'flood-model',
        persona_age: '18+',
        heart: {
          about: 'I like long walks, old films and cooking for friends on Sundays.',
          seeking: 'Someone kind and curious to share quiet evenings with.',
          values: ['kindness'],
          interests: ['films', 'cooking'],
        },
      }))
    case 'rail-offers':
      return post('/v1/offers', () => {
        next()
        return {
          endpoint: 'https://flood.example.com/v1',
          payTo: FLOOD_PAYTO,
          model,
          mtok: 1,
          priceUsd: '999',
        }
      })
    case 'router-salts':
      return post('/api/v1/get_sign_payload', () => ({
        intent: {
          name: `Flood ${next()}`,
          symbol: 'FLOOD',
          chainId: 56,
          pad: 'flap',
          creator: FLOOD_PAYTO,
        },
      }))
    default:
      throw new Error(`unknown flood kind ${kind satisfies never}`)
  }
}
