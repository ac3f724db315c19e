import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

/** The version of a package as installed here (its package.json need not be exported); `entry`: a subpath it exports, for packages without a root export. */
export const installedVersion = (name: string, entry = name): string => {
  let directory = dirname(require.resolve(entry))
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'))
      if (manifest.name === name) return manifest.version
    } catch {}
    const parent = dirname(directory)
    if (parent === directory) throw new Error(`no package.json for ${name}`)
    directory = parent
  }
}
