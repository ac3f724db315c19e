import { createLogger, postJson, startTestServer } from '@agents/service-kit'
import { createSellerProxy } from '../proxy/create-seller-proxy.ts'
import { startFakeHub, TEST_ENDPOINT, TEST_MODEL } from './start-fake-hub.ts'
import { type FakeUpstreamBehaviour, startFakeUpstream } from './start-fake-upstream.ts'

export const TEST_UPSTREAM_KEY = 'sk-seller-secret-0123456789'

/** A fake hub, a fake upstream and the seller proxy between them, all over real HTTP. */
export const startSellerFixture = async () => {
  const hub = await startFakeHub()
  const upstream = await startFakeUpstream()
  const defaults = { ...upstream.behaviour }
  const proxy = await startTestServer(
    createSellerProxy({
      hubJwksUrl: hub.jwksUrl,
      endpoint: TEST_ENDPOINT,
      upstream: { baseUrl: upstream.url, apiKey: TEST_UPSTREAM_KEY },
      logger: createLogger({ name: 'swap-seller', level: 'silent' }),
    }),
  )
  const completionsUrl = `${proxy.url}/v1/chat/completions`

  /** POSTs a chat completion with `bearer` (a grant) as the Authorization. */
  const complete = (bearer: string | undefined, body: object = {}) =>
    postJson(
      completionsUrl,
      { model: TEST_MODEL, messages: [{ role: 'user', content: 'hello' }], ...body },
      bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
    )

  return {
    hub,
    upstream,
    completionsUrl,
    complete,
    /** Puts the upstream back to its defaults (plus `overrides`) and forgets its calls. */
    resetUpstream: (overrides: Partial<FakeUpstreamBehaviour> = {}) => {
      Object.assign(upstream.behaviour, defaults, overrides)
      upstream.calls.length = 0
    },
    close: async () => {
      await proxy.close()
      await Promise.all([hub.close(), upstream.close()])
    },
  }
}
export type SellerFixture = Awaited<ReturnType<typeof startSellerFixture>>
