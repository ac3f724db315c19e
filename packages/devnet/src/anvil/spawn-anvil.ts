import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export type SpawnAnvilParameters = {
  /** Extra CLI flags, e.g. `['--chain-id', '8453']`. */
  args?: readonly string[]
  /** How long to wait for the port line and a JSON-RPC answer. */
  timeoutMs?: number
}

export type SpawnAnvilReturnType = {
  rpcUrl: string
  pid: number
  /** Ends the process and resolves once it has exited. */
  stop: () => Promise<void>
}

/** Every anvil we started and have not yet seen exit; killed by the `exit` hook. */
const children = new Set<ChildProcess>()

// An `exit` listener may only do synchronous work, which `kill` is. It makes the chains die with
// the test runner even when a test crashes before `stop()`.
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

/** The platform binary that `@foundry-rs/anvil` installs as an optional dependency. */
export const resolveAnvilBinary = (): string => {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const require = createRequire(import.meta.url)
  const packageJson = require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/package.json`)
  return join(dirname(packageJson), 'bin', 'anvil')
}

/**
 * Starts anvil on 127.0.0.1 with an ephemeral port (`--port 0`) and resolves once it answers
 * JSON-RPC.
 *
 * @example
 * const anvil = await spawnAnvil({ args: ['--chain-id', '8453'] })
 */
export const spawnAnvil = async ({
  args = [],
  timeoutMs = 15_000,
}: SpawnAnvilParameters = {}): Promise<SpawnAnvilReturnType> => {
  const child = spawn(resolveAnvilBinary(), ['--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  // 'error' without 'exit' means it never started (e.g. a missing binary).
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })
  const watchdog = spawnWatchdog(child.pid)
  exited.then(() => {
    children.delete(child)
    // Only after anvil is gone, so the watchdog can never signal a reused pid.
    watchdog?.kill('SIGKILL')
  })

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }

  try {
    const port = await readPort(child, timeoutMs)
    const rpcUrl = `http://127.0.0.1:${port}`
    await waitForRpc(rpcUrl, timeoutMs)
    // Keep draining output so a full pipe never blocks anvil's logging.
    child.stdout?.resume()
    child.stderr?.resume()
    return { rpcUrl, pid: child.pid!, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/**
 * The `exit` hook misses a runner that dies by a signal (vitest ends timed-out workers that way).
 * This shell holds the read end of a pipe only we write to; when our process dies for any reason
 * the pipe closes, `read` returns and the shell kills anvil.
 */
const spawnWatchdog = (pid: number | undefined) => {
  if (pid === undefined || process.platform === 'win32') return undefined
  const watchdog = spawn('/bin/sh', ['-c', `read _; kill -KILL ${pid} 2>/dev/null`], {
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  // Neither handle may keep a finished test run (or the CLI after stop) alive.
  watchdog.unref()
  ;(watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.()
  watchdog.on('error', () => {})
  return watchdog
}

/** Anvil prints `Listening on 127.0.0.1:<port>` once the socket is bound. */
const readPort = (child: ChildProcess, timeoutMs: number) =>
  new Promise<number>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(
      () => fail(new Error('anvil did not print its port in time')),
      timeoutMs,
    )
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (!match) return
      cleanup()
      resolve(Number(match[1]))
    }
    const onExit = (code: number | null) =>
      fail(new Error(`anvil exited (code ${code}) before listening:\n${output.slice(-2000)}`))
    const onError = (error: Error) => fail(new Error(`anvil did not start: ${error.message}`))
    const fail = (error: Error) => {
      cleanup()
      reject(error)
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', onError)
  })

const waitForRpc = async (rpcUrl: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      })
      if (response.ok) return
    } catch {
      // Not accepting connections yet.
    }
    if (Date.now() > deadline) throw new Error(`anvil at ${rpcUrl} did not answer JSON-RPC`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
