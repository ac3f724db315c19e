import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

test('behavior: SIGTERM drains in-flight requests, runs onClose and exits 0', async () => {
  const fixture = fileURLToPath(new URL('./fixtures/slow-server.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout })
  const output: string[] = []
  const url = await new Promise<string>((resolve) => {
    lines.on('line', (line) => {
      output.push(line)
      if (line.startsWith('http://')) resolve(line)
    })
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))

  const inFlight = fetch(`${url}/slow`).then((response) => response.json())
  await new Promise((done) => setTimeout(done, 100))
  child.kill('SIGTERM')

  expect(await inFlight).toEqual({ finished: true })
  expect(await exited).toBe(0)
  expect(output).toContain('closed')
  // The listener is gone: new connections are refused.
  await expect(fetch(`${url}/slow`)).rejects.toThrow()
})
