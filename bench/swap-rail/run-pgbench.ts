import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

/**
 * pgbench's built-in TPC-B-like script against `url` (initialised with
 * `pgbench -i`): transactions per second without the initial connection
 * time, and its average latency in milliseconds.
 */
export const runPgbench = async (
  url: string,
  { clients = 50, threads = 2, seconds }: { clients?: number; threads?: number; seconds: number },
) => {
  const args = ['-c', String(clients), '-j', String(threads), '-T', String(seconds), url]
  const { stdout } = await run('pgbench', args)
  const figure = (pattern: RegExp) => {
    const found = stdout.match(pattern)
    if (!found) throw new Error(`pgbench printed no ${pattern}:\n${stdout}`)
    return Number(found[1])
  }
  return {
    tps: figure(/^tps = ([\d.]+) \(without initial connection time\)/m),
    latencyMs: figure(/^latency average = ([\d.]+) ms/m),
    transactions: figure(/^number of transactions actually processed: (\d+)/m),
  }
}
