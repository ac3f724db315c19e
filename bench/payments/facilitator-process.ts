// The devnet's x402 facilitator in a process of its own, as a deployed
// facilitator is another service: its signature work then no longer takes
// turns with the caller's on one event loop. `startFacilitatorProcess`
// spawns this file; run directly, it serves until killed and prints
// `listening on <url>`.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { TS_ARGS } from '@agents/bench-config'
import { DEVNET_PRIVATE_KEYS } from '@agents/devnet'
import { defineBaseDevnet, startFacilitator } from '@agents/devnet/bench'

/**
 * The facilitator in a child process settling on `rpcUrl`: its URL, and how
 * to stop it. `receiptPollingMs`: how often a settle asks for its receipt
 * (the devnet's 50 by default).
 */
export const startFacilitatorProcess = (rpcUrl: string, { receiptPollingMs = 50 } = {}) =>
  new Promise<{ url: string; stop: () => void }>((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_ARGS, fileURLToPath(import.meta.url)], {
      env: {
        PATH: process.env.PATH ?? '',
        FACILITATOR_RPC_URL: rpcUrl,
        FACILITATOR_RECEIPT_POLLING_MS: String(receiptPollingMs),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
      // Its own process group: a signal meant for the bench's group does not reach it.
      detached: true,
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (\S+)/.exec(output)?.[1]
      if (url) resolve({ url, stop: () => child.kill('SIGKILL') })
    })
    child.once('exit', (code) => reject(new Error(`facilitator process exited with ${code}`)))
  })

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rpcUrl = process.env.FACILITATOR_RPC_URL
  if (!rpcUrl) throw new Error('FACILITATOR_RPC_URL is required')
  const facilitator = await startFacilitator({
    rpcUrl,
    chain: defineBaseDevnet(rpcUrl),
    privateKey: DEVNET_PRIVATE_KEYS.facilitator,
    receiptPollingMs: Number(process.env.FACILITATOR_RECEIPT_POLLING_MS ?? 50),
  })
  console.log(`listening on ${facilitator.url}`)
}
