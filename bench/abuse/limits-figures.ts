import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { TS_ARGS } from '@agents/bench-config'

/**
 * Runs another bench's script as it is, `bench/<folder>/<file>` (a
 * service's `limits-bench.ts`: the limiter's own cost on a route, with and
 * without limits; or `limits/run.ts`: one take of the limiter by store) and
 * returns its output lines, or undefined when the script does not exist.
 */
export const runLimitsBench = async (
  folder: string,
  file: string,
  { env = {}, timeoutMs = 120_000 }: { env?: Record<string, string>; timeoutMs?: number } = {},
) => {
  const script = fileURLToPath(new URL(`../${folder}/${file}`, import.meta.url))
  if (!existsSync(script)) return undefined
  return new Promise<{ ok: boolean; lines: string[] }>((resolve) => {
    const child = spawn(process.execPath, [...TS_ARGS, script], {
      cwd: fileURLToPath(new URL(`../${folder}/`, import.meta.url)),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
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
