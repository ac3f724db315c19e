import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'

export type SpawnedService = {
  url: string
  child: ChildProcess
  /** SIGKILL: no shutdown hooks, no flush; as a crash or an OOM kill. */
  kill: () => Promise<void>
  /** SIGTERM and wait for the exit. */
  stop: () => Promise<void>
}

/** A free TCP port on 127.0.0.1 (so a restarted service answers at the same URL). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
    server.once('error', reject)
  })

/**
 * Runs a service's `main.ts` in a child process (node with tsx) with `env`,
 * and resolves once it prints `listening on <url>`.
 */
export const spawnService = (
  entry: string,
  env: Record<string, string>,
  { timeoutMs = 30_000 } = {},
): Promise<SpawnedService> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${entry} did not start in ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (!url) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stdout?.resume()
      resolve({
        url,
        child,
        kill: async () => {
          child.kill('SIGKILL')
          await exited
        },
        stop: async () => {
          child.kill('SIGTERM')
          await exited
        },
      })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${entry} exited with ${code} before listening:\n${output}`))
    })
  })
