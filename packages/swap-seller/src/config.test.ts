import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { readConfig } from './config.ts'
import { startFakeHub } from './testing/start-fake-hub.ts'

const required = {
  SELLER_ENDPOINT: 'https://seller.example/v1',
  SELLER_HUB_JWKS_URL: 'https://hub.example/.well-known/jwks.json',
  SELLER_UPSTREAM_URL: 'https://api.openai.com/v1',
  SELLER_UPSTREAM_API_KEY: 'sk-seller',
}

const problemsOf = (env: Record<string, string>) => {
  try {
    readConfig(env)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).problems
  }
  return expect.unreachable('config accepted')
}

test('default: required variables plus defaults', () => {
  expect(readConfig(required)).toMatchInlineSnapshot(`
    {
      "LOG_LEVEL": "info",
      "SELLER_ENDPOINT": "https://seller.example/v1",
      "SELLER_HOST": "127.0.0.1",
      "SELLER_HUB_JWKS_URL": "https://hub.example/.well-known/jwks.json",
      "SELLER_MAX_BODY_BYTES": 4194304,
      "SELLER_PORT": 3010,
      "SELLER_UPSTREAM_API_KEY": "sk-seller",
      "SELLER_UPSTREAM_TIMEOUT_MS": 300000,
      "SELLER_UPSTREAM_TOKENS_FIELD": "max_completion_tokens",
      "SELLER_UPSTREAM_URL": "https://api.openai.com/v1",
    }
  `)
})

test('error: every missing variable is reported at once', () => {
  expect(problemsOf({}).map((problem) => problem.split(':')[0])).toEqual([
    'SELLER_ENDPOINT',
    'SELLER_HUB_JWKS_URL',
    'SELLER_UPSTREAM_URL',
    'SELLER_UPSTREAM_API_KEY',
  ])
  // Empty means unset.
  expect(problemsOf({ ...required, SELLER_UPSTREAM_API_KEY: '' })).toHaveLength(1)
})

test('error: an endpoint that does not end in /v1, non-http URLs', () => {
  expect(
    problemsOf({ ...required, SELLER_ENDPOINT: 'https://seller.example', SELLER_PORT: 'x' }),
  ).toMatchInlineSnapshot(`
    [
      "SELLER_PORT: Invalid input: expected number, received NaN",
      "SELLER_ENDPOINT: must be the public base URL ending in /v1, e.g. https://seller.example/v1",
    ]
  `)
  expect(problemsOf({ ...required, SELLER_HUB_JWKS_URL: 'ftp://hub.example/jwks' })).toEqual([
    'SELLER_HUB_JWKS_URL: must be an http(s) URL',
  ])
})

test('error: the upstream may not be the hub', () => {
  expect(
    problemsOf({ ...required, SELLER_UPSTREAM_URL: 'https://hub.example/v1' }),
  ).toMatchInlineSnapshot(`
    [
      "SELLER_UPSTREAM_URL: must not be on the hub: the upstream key is never sent to the hub",
    ]
  `)
})

const main = fileURLToPath(new URL('./main.ts', import.meta.url))
const runMain = (env: Record<string, string>) => {
  // Only what the test passes: no SELLER_* leaking in from the developer's shell.
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { child, exited, output: () => ({ stdout, stderr }) }
}

test('behavior: main.ts refuses to start without its variables', async () => {
  const run = runMain({})
  expect(await run.exited).toBe(1)
  const { stderr } = run.output()
  expect(stderr).toContain('swap-seller: invalid configuration')
  for (const name of Object.keys(required)) expect(stderr).toContain(name)
})

test('behavior: main.ts starts with its variables and stops on SIGTERM', async () => {
  const hub = await startFakeHub()
  const run = runMain({
    ...required,
    SELLER_HUB_JWKS_URL: hub.jwksUrl,
    SELLER_PORT: '0',
  })
  const url = await new Promise<string>((resolve, reject) => {
    run.child.stdout.on('data', () => {
      const match = /listening on (http:\/\/\S+)/.exec(run.output().stdout)
      if (match?.[1]) resolve(match[1])
    })
    void run.exited.then(() => reject(new Error(run.output().stderr)))
  })
  const health = await fetch(`${url}/health`)
  expect(await health.json()).toMatchObject({ status: 'ok', service: 'swap-seller' })
  const unpaid = await fetch(`${url}/v1/chat/completions`, { method: 'POST' })
  expect(unpaid.status).toBe(401)
  run.child.kill('SIGTERM')
  expect(await run.exited).toBe(0)
  await hub.close()
})
