import type { Target } from './target.ts'

const CREATOR = '0x00000000000000000000000000000000000000A1'

/**
 * The launch router: the agent lists the pads, reads flap's capabilities and
 * asks for the sign payload of a new token (a salt mined for it) each loop.
 */
export const routerTarget: Target = {
  service: 'launch-router',
  stateful: false,
  flood: 'router-salts',
  floodTakes: 'new salts mined',
  intervalMs: Number(process.env.BENCH_ROUTER_INTERVAL_MS ?? 250),
  env: () => ({}),
  prepare: async (context) => ({
    loop: async (call, n) => {
      await call('list_pads', '/api/v1/list_pads', { body: {} })
      await call('get_capabilities', '/api/v1/get_capabilities', { body: { pad: 'flap' } })
      await call('get_sign_payload', '/api/v1/get_sign_payload', {
        body: {
          intent: {
            name: `Agent ${context.tag} ${n}`,
            symbol: 'AGENT',
            chainId: 56,
            pad: 'flap',
            creator: CREATOR,
          },
        },
      })
    },
  }),
}
