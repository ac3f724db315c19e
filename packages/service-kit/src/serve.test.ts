import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { createApp } from './create-app.ts'
import { createLogger } from './logger.ts'
import { startTestServer } from './testing.ts'

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

test('behavior: an idle keep-alive connection outlives the idle timeouts in front (65 s, said in Keep-Alive)', async () => {
  const app = createApp({
    name: 'keep-alive',
    version: '0',
    logger: createLogger({ name: 'test', level: 'silent' }),
  })
  const server = await startTestServer(app)
  try {
    const answer = await new Promise<string | undefined>((resolve, reject) =>
      request(`${server.url}/health`, (response) => {
        response.resume()
        resolve(String(response.headers['keep-alive']))
      })
        .on('error', reject)
        .end(),
    )
    expect(answer).toBe('timeout=65')
  } finally {
    await server.close()
  }
})
