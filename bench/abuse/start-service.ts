import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { benchConfig, TS_ARGS } from '@agents/bench-config'

export type StartedService = { url: string; pid: number; stop: () => Promise<void> }

/**
 * Starts `@agents/<name>/main` (the service's `src/main.ts`) in a child Node process (from the
 * service's folder, as `npm start` does; tsx's loader only on Node 20) with `env` over ours (an
 * undefined value unsets a variable), and
 * resolves with its URL and pid once it prints `listening on <url>`. Its log
 * lines are read and dropped; `stop` sends SIGTERM and waits for the exit.
 */
export const startService = (
  name: string,
  env: Record<string, string | undefined>,
  { timeoutMs = 60_000 } = {},
) =>
  new Promise<StartedService>((resolve, reject) => {
    // `@agents/<name>/main` is the service's `src/main.ts`; its folder is the working directory.
    const main = import.meta.resolve(`@agents/${name}/main`)
    const folder = fileURLToPath(new URL('..', new URL('.', main)))
    const child = spawn(process.execPath, [...TS_ARGS, fileURLToPath(main)], {
      cwd: folder,
      env: Object.fromEntries(
        Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
      ) as Record<string, string>,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    let started = false
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} did not start in ${timeoutMs} ms:\n${output.slice(-4000)}`))
    }, timeoutMs)
    const keep = (chunk: Buffer) => {
      if (started) {
        if (benchConfig.abuse.verbose) process.stderr.write(`[${name}] ${chunk}`)
        return
      }
      output += chunk.toString()
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (!url) return
      started = true
      clearTimeout(timer)
      resolve({
        url,
        pid: child.pid!,
        stop: async () => {
          child.kill('SIGTERM')
          const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
          await exited
          clearTimeout(killer)
        },
      })
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', (chunk: Buffer) => {
      if (!started) output += chunk.toString()
      else if (benchConfig.abuse.verbose) process.stderr.write(`[${name}] ${chunk}`)
    })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (!started)
        reject(new Error(`${name} exited (${signal ?? code}) before listening:\n${output}`))
    })
  })
