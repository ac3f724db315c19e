import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository this package sits in. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

export type ProductionInstall = {
  /** The installed tree: this checkout's files and their production dependencies. */
  dir: string
  /** How long the copy and the install took, in milliseconds (0 for a reused install). */
  ms: number
}

const run = (command: string, args: string[], cwd: string) =>
  new Promise<void>((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.once('error', fail)
    child.once('exit', (code) =>
      code === 0
        ? done()
        : fail(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    )
  })

/**
 * What an operator gets: the README's production install,
 * `scripts/production-install.sh <dir>` (this checkout's files, nothing git
 * ignores, copied into a new temporary folder, then `npm ci --omit=dev`
 * there: no devDependencies, install scripts as `allowScripts` decides).
 * With `reuse`, an install made before (`REHEARSAL_INSTALL_DIR`) is taken as
 * it is.
 *
 * @example const { dir, ms } = await productionInstall()
 */
export const productionInstall = async ({
  reuse = process.env.REHEARSAL_INSTALL_DIR,
}: {
  reuse?: string | undefined
} = {}): Promise<ProductionInstall> => {
  if (reuse) {
    if (!existsSync(join(reuse, 'node_modules')))
      throw new Error(`REHEARSAL_INSTALL_DIR=${reuse} holds no installed tree`)
    return { dir: reuse, ms: 0 }
  }
  const started = performance.now()
  const dir = await mkdtemp(join(tmpdir(), 'agent-services-rehearsal-'))
  await run('bash', [join(REPOSITORY_ROOT, 'scripts', 'production-install.sh'), dir], dir)
  return { dir, ms: Math.round(performance.now() - started) }
}
