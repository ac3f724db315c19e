// The swap rail in its own process, so the load generator does not share its
// event loop: settings come from the environment, the URL goes to stdout.
import { readConfig, startSwapRail } from '@agents/swap-rail'

const server = await startSwapRail(readConfig(process.env), process.env, { handleSignals: true })
process.stdout.write(`${server.url}\n`)
