import { readConfig } from './config.ts'
import { startLaunchRouter } from './start.ts'

const server = await startLaunchRouter(readConfig(), { handleSignals: true })
process.stdout.write(`launch-router listening on ${server.url}\n`)
