import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'

export type ServiceName = 'launch-router' | 'swap-rail' | 'dating-venue'

export type ProductionService = {
  name: string
  url: string
  child: ChildProcess
  /** Milliseconds from spawn to `listening on`. */
  startMs: number
  /** SIGTERM, as a rolling restart or `docker stop` sends it; resolves with the exit code. */
  stop: () => Promise<number | null>
  /** What the process wrote (its JSON log lines), for a failure's message. */
  output: () => string
}

/**
 * Runs one service of a production install as the image's entry point does
 * (ops/docker/start-service.sh): from the service's own folder, `node
 * src/main.ts`, Node's own type stripping, `NODE_ENV=production`, and
 * nothing else in its environment than `env` (and PATH): every setting and
 * secret comes from there. Resolves once it prints `listening on`.
 *
 * @example const rail = await startProductionService(install.dir, 'swap-rail', env, 'rail-1')
 */
export const startProductionService = (
  dir: string,
  service: ServiceName,
  env: Record<string, string>,
  name: string = service,
  { timeoutMs = 180_000 } = {},
): Promise<ProductionService> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: join(dir, 'services', service),
      env: { PATH: process.env.PATH ?? '', ...env, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000)
    }
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} did not start in ${timeoutMs} ms:\n${output}`))
    }, timeoutMs)
    const onData = (chunk: Buffer) => {
      keep(chunk)
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
      if (!url) return
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stdout?.on('data', keep)
      resolve({
        name,
        url,
        child,
        startMs: Math.round(performance.now() - started),
        stop: async () => {
          child.kill('SIGTERM')
          return exited
        },
        output: () => output,
      })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', keep)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code} before listening:\n${output}`))
    })
  })
