import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The repository stands alone: a clone holds everything its documents send a
// reader to. No file points outside it (the team's notes and specs are not in
// a clone), and every relative link of the Markdown documents reaches a file
// of the repository and, with an anchor, a heading of it.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SKIP = new Set(['node_modules', '.git', 'data', 'test-output', 'scratch', 'results'])

const files = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return []
    const path = join(folder, entry.name)
    return entry.isDirectory() ? files(path) : [path]
  })

const sources = files(root).filter((path) => /\.(md|ts|json|ya?ml|sh)$/.test(path))
const documents = sources.filter((path) => path.endsWith('.md'))

/** A heading's anchor as GitHub writes it. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')
const anchorsOf = (path: string) =>
  new Set(
    [...readFileSync(path, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
      anchorOf(heading!),
    ),
  )

describe('the repository', () => {
  it('refers to nothing outside it (the shared notes and specs are not in a clone)', () => {
    const outside = /\.\.\/shared\/|\/work\/shared|shared\/(specs|notes|DESIGN\.md|STYLE\.md)/
    const offenders = sources
      .filter((path) => path !== fileURLToPath(import.meta.url))
      .filter((path) => outside.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path))
    expect(offenders).toEqual([])
  })

  it('has every relative link of its documents lead to a file and heading it holds', () => {
    const broken: string[] = []
    for (const document of documents) {
      const text = readFileSync(document, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue
        const [path, anchor] = target!.split('#')
        const file = path ? resolve(dirname(document), path) : document
        if (!existsSync(file)) broken.push(`${relative(root, document)}: ${target}`)
        else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          broken.push(`${relative(root, document)}: ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })
})
