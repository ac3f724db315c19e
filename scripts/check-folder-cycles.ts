/**
 * Folder-level import cycles, beside dpdm's file-level check (`npm run lint:cycles`).
 *
 * In each `services/*` and `packages/*` source tree, every top-level folder of
 * `src/` is one node; an edge is any relative import, type-only ones included,
 * from a file of one folder to a file of another. A capability folder that
 * imports a folder importing it back is two capabilities tangled, even when no
 * file cycle exists. Left out: the files directly in `src/` (`app.ts`,
 * `deps.ts`, `config.ts`: the composition root, which dpdm checks file by
 * file) and tests (they reach every folder through the started app). Fails
 * listing each cycle (one strongly connected component) with its edges.
 *
 * @example npx tsx scripts/check-folder-cycles.ts --graph services/dating-venue
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

// Static imports and re-exports (`from '...'`), side-effect imports and `import('...')`.
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path)
    return /\.(ts|tsx|mts)$/.test(entry.name) && !/\.(d|test)\.ts$/.test(entry.name) ? [path] : []
  })

/** The folder of `src` a file belongs to; undefined for a file directly in `src`. */
const folderOf = (src: string, file: string) => {
  const [first, ...rest] = relative(src, file).split(sep)
  return rest.length === 0 ? undefined : (first as string)
}

/** Folder -> folders it imports, for one `src` tree. */
export const folderGraph = (src: string) => {
  const graph = new Map<string, Set<string>>()
  for (const file of sourceFiles(src)) {
    const from = folderOf(src, file)
    if (from === undefined) continue
    const edges = graph.get(from) ?? new Set<string>()
    graph.set(from, edges)
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), specifier as string)
      if (relative(src, target).startsWith('..')) continue
      const to = folderOf(src, target)
      if (to !== undefined && to !== from) edges.add(to)
    }
  }
  return graph
}

/** The cycles of a graph: its strongly connected components of more than one node (Tarjan). */
export const findCycles = (graph: Map<string, Set<string>>) => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node) as number)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string | undefined
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1) cycles.push(component.sort())
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return cycles
}

const trees = ['services', 'packages'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name, 'src'))
    .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory()),
)

const args = process.argv.slice(2)
const graphOf = args[0] === '--graph' ? args[1] : undefined
let failed = false
for (const src of trees) {
  const name = relative(root, dirname(src))
  const graph = folderGraph(src)
  if (graphOf && resolve(root, graphOf) === dirname(src)) {
    for (const [from, to] of [...graph].sort(([a], [b]) => a.localeCompare(b)))
      console.log(`${from} -> ${[...to].sort().join(' ') || '(nothing)'}`)
  }
  for (const cycle of findCycles(graph)) {
    failed = true
    const edges = cycle.flatMap((from) =>
      [...(graph.get(from) ?? [])]
        .filter((to) => cycle.includes(to))
        .map((to) => `${from} -> ${to}`),
    )
    console.error(`folder cycle in ${name}/src: ${cycle.join(', ')}\n  ${edges.join('\n  ')}`)
  }
}
if (failed) process.exit(1)
