import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The limiter's own cost on a service's route, with and without limits: the
 * service's in-process bench `bench/<service>/limits-bench.ts`, run as it is
 * (its output lines), or undefined when that bench does not exist yet.
 */
export const runLimitsBench = async (service: string, { timeoutMs = 120_000 } = {}) => {
  const script = fileURLToPath(new URL(`../${service}/limits-bench.ts`, import.meta.url))
  if (!existsSync(script)) return undefined
  return new Promise<{ ok: boolean; lines: string[] }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: fileURLToPath(new URL(`../${service}/`, import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      output += `\n(stopped after ${timeoutMs / 1000} s)`
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve({ ok: code === 0, lines: output.trim().split('\n') })
    })
  })
}
