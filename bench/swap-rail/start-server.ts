import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { TS_ARGS } from '@agents/bench-config'

const railScript = fileURLToPath(new URL('./server.ts', import.meta.url))

/**
 * Starts `script` (by default `server.ts`, the swap rail) in a child Node
 * process with `env` on top of ours and resolves with its URL and pid once it
 * prints it. `stop` sends SIGTERM and waits for the exit (the rail closes its
 * pool on the way out).
 */
export const startServer = (
  env: Record<string, string>,
  { script = railScript }: { script?: string } = {},
) =>
  new Promise<{ url: string; pid: number; stop: () => Promise<void> }>((resolve, reject) => {
    const child = spawn(process.execPath, [...TS_ARGS, script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    createInterface({ input: child.stdout }).once('line', (url) =>
      resolve({
        url,
        pid: child.pid!,
        stop: async () => {
          child.kill('SIGTERM')
          await exited
        },
      }),
    )
  })
