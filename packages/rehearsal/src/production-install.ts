import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** The repository this package sits in. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')

export type ProductionInstall = {
  /** The installed tree: the repository's committed files and their production dependencies. */
  dir: string
  /** How long the copy and the install took, in milliseconds (0 for a reused install). */
  ms: number
}

const sh = (command: string, args: string[], cwd: string) =>
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
 * What an operator gets: the repository's committed tree (`git archive`,
 * so nothing uncommitted and no installed modules come along) in a new
 * temporary folder, then the README's production install in it
 * (`npm ci --omit=dev`: no devDependencies, as the Dockerfile does). With
 * `reuse`, an install made before (`REHEARSAL_INSTALL_DIR`) is taken as it is.
 *
 * @example const { dir, ms } = await productionInstall()
 */
export const productionInstall = async ({
  reuse = process.env.REHEARSAL_INSTALL_DIR,
  ref = 'HEAD',
}: {
  reuse?: string | undefined
  ref?: string
} = {}): Promise<ProductionInstall> => {
  if (reuse) {
    if (!existsSync(join(reuse, 'node_modules')))
      throw new Error(`REHEARSAL_INSTALL_DIR=${reuse} holds no installed tree`)
    return { dir: reuse, ms: 0 }
  }
  const started = performance.now()
  const dir = await mkdtemp(join(tmpdir(), 'agent-services-rehearsal-'))
  await mkdir(dir, { recursive: true })
  const archive = join(dir, '.tree.tar')
  await promisify(execFile)('git', ['-C', REPOSITORY_ROOT, 'archive', '--output', archive, ref])
  await sh('tar', ['-xf', archive, '-C', dir], dir)
  await sh('rm', [archive], dir)
  await sh('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], dir)
  return { dir, ms: Math.round(performance.now() - started) }
}
