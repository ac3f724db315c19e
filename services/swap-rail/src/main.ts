import { readConfig } from './config.ts'
import { startSwapRail } from './start.ts'

const server = await startSwapRail(readConfig(), process.env, { handleSignals: true })
process.stdout.write(`swap-rail listening on ${server.url}\n`)
