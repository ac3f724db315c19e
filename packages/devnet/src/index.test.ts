import { expect, test } from 'vitest'
import * as devnet from './index.ts'

test('exports', () => {
  expect(Object.keys(devnet).sort()).toMatchInlineSnapshot(`
    [
      "BASE_CHAIN_ID",
      "BASE_USDC_ADDRESS",
      "DEVNET_PAYER_USDC",
      "DEVNET_PRIVATE_KEYS",
      "TEMPO_CHAIN_ID",
      "TEMPO_PATH_USD",
      "createCdpApiKey",
      "devnetEnv",
      "getDevnetAccounts",
      "proxiedPostgresUrl",
      "serveLocal",
      "spawnAnvil",
      "startCdpFacilitator",
      "startDevnet",
      "startStudioToken",
      "startTcpFaultProxy",
      "verifyCdpJwt",
    ]
  `)
})
