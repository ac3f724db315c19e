import { seededRandom } from '@agents/service-kit'
import autocannon from 'autocannon'

/**
 * Files intents with autocannon for `seconds`: each request a random model,
 * 1 to 10 MTok, and a price limit at or above every offer's price, so each
 * intent matches while its model has capacity left.
 */
export const loadIntents = async (
  url: string,
  {
    models,
    seconds,
    connections = 50,
    seed = 2,
  }: { models: readonly string[]; seconds: number; connections?: number; seed?: number },
) => {
  const random = seededRandom(seed)
  const limits = ['5', '7.5', '10']
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/intents',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            model: models[Math.floor(random() * models.length)],
            mtok: 1 + Math.floor(random() * 10),
            maxPriceUsd: limits[Math.floor(random() * limits.length)],
          }),
        }),
      },
    ],
  })
  return {
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    latency: result.latency,
  }
}
