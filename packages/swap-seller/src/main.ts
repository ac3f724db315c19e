import { ConfigError } from '@agents/service-kit'
import { readConfig, type SellerConfig } from './config.ts'
import { startSeller } from './start-seller.ts'

let config: SellerConfig
try {
  config = readConfig()
} catch (error) {
  // A list of missing variables is the whole story; a stack trace would bury it.
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`swap-seller: ${error.message}\n`)
  process.exit(1)
}
const server = await startSeller(config, { handleSignals: true })
process.stdout.write(`swap-seller listening on ${server.url}\n`)
