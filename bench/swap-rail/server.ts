// The swap rail in its own process, so the load generator does not share its
// event loop: settings come from the environment, the URL goes to stdout.
// The benches load the rail from one address, which its request limits and
// book bounds exist to stop: they are lifted here unless the environment sets
// them (limits-bench.ts measures what they cost).
import { readConfig, startSwapRail } from '@agents/swap-rail'

const LIFTED = {
  RATE_LIMIT_READ: '999999999/60',
  RATE_LIMIT_ANONYMOUS_WRITE: '999999999/60',
  RATE_LIMIT_WRITE: '999999999/60',
  RATE_LIMIT_CHALLENGE: '999999999/60',
  RATE_LIMIT_UNKNOWN_MATCH: '999999999/60',
  SWAP_MAX_OPEN_OFFERS_PER_SELLER: 'off',
  SWAP_MAX_OPEN_OFFERS_PER_CLIENT: 'off',
  SWAP_MAX_OPEN_INTENTS_PER_CLIENT: 'off',
}
const env = { ...LIFTED, ...process.env }
const server = await startSwapRail(readConfig(env), env, { handleSignals: true })
process.stdout.write(`${server.url}\n`)
