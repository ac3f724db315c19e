import { seededRandom } from '@agents/service-kit'

/**
 * Posts `count` offers through `POST /v1/offers`, spread evenly over
 * `models`, from 100 sellers: prices $0.50 to $5.00 per MTok and capacities
 * of 200 to 3,000 MTok (`mtok`), so the cheapest offers of each model fill up during
 * the run while the book as a whole keeps matching.
 */
export const seedOffers = async (
  url: string,
  {
    count,
    models,
    concurrency = 8,
    mtok: [least, most] = [200, 3000],
  }: {
    count: number
    models: readonly string[]
    concurrency?: number
    mtok?: readonly [number, number]
  },
) => {
  const random = seededRandom(1)
  const bodies = Array.from({ length: count }, (_, index) => {
    const seller = index % 100
    return JSON.stringify({
      endpoint: `https://seller-${seller}.example/v1`,
      payTo: `0x${(seller + 1).toString(16).padStart(40, '0')}`,
      model: models[index % models.length],
      mtok: least + Math.floor(random() * (most - least + 1)),
      priceUsd: (0.5 + Math.floor(random() * 451) / 100).toFixed(2),
    })
  })
  let next = 0
  const post = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!
      const response = await fetch(`${url}/v1/offers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (response.status !== 201)
        throw new Error(`POST /v1/offers answered ${response.status}: ${await response.text()}`)
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: concurrency }, post))
}
