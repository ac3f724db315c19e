import { readdir, readFile } from 'node:fs/promises'
import { expect, it } from 'vitest'

// The README's map of src/ is where a newcomer starts: a folder added, renamed or removed
// without its line there fails here.
it("the README's map names every folder of src/, once, and no other", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
  const map = readme.slice(
    readme.indexOf('## Where things are'),
    readme.indexOf('## Configuration'),
  )
  const listed = [...map.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1])
  const folders = (await readdir(new URL('.', import.meta.url), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
  expect(listed.length).toBeGreaterThan(30)
  expect(listed).toEqual([...new Set(listed)])
  expect([...listed].sort()).toEqual(folders.sort())
})
