import { readConfig } from './config.ts'
import { startVenue } from './start.ts'

const server = await startVenue(readConfig(), process.env, { handleSignals: true })
process.stdout.write(`dating-venue listening on ${server.url}\n`)
