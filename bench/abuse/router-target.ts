import { benchConfig } from '@agents/bench-config'
import type { Target } from './target.ts'

const CREATOR = '0x00000000000000000000000000000000000000A1'
/** A new token every this many loops (every 2 s at the default pace): one salt mined. */
const LAUNCH_EVERY = 8

/**
 * The launch router. Each loop (every 250 ms) the agent lists the pads and
 * reads flap's capabilities; every 8th it launches a new token: draft,
 * simulate (the salt is mined) and sign payload (the salt remembered).
 * That is 570 requests a minute (the `read` limit is 1,200) and one new
 * salt every 2 s.
 */
export const routerTarget: Target = {
  service: 'launch-router',
  stateful: false,
  flood: 'router-salts',
  floodTakes: 'new salts mined',
  intervalMs: benchConfig.abuse.routerIntervalMs,
  env: () => ({}),
  prepare: async (context) => ({
    loop: async (call, n) => {
      await call('list_pads', '/api/v1/list_pads', { body: {} })
      await call('get_capabilities', '/api/v1/get_capabilities', { body: { pad: 'flap' } })
      if (n % LAUNCH_EVERY !== 0) return
      const intent = {
        name: `Agent ${context.tag} ${n}`,
        symbol: 'AGENT',
        chainId: 56,
        pad: 'flap',
        creator: CREATOR,
      }
      await call('draft_intent', '/api/v1/draft_intent', {
        body: { intent },
        check: (json) => json.ok === true,
      })
      await call('simulate_launch', '/api/v1/simulate_launch', { body: { intent } })
      await call('get_sign_payload', '/api/v1/get_sign_payload', { body: { intent } })
    },
  }),
}
