import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setConfigPath } from '@bankr/cli'
import { type DeployTokenRequest, deployToken } from '@bankr/cli/dist/lib/api.js'
import fc from 'fast-check'
import { isAddress } from 'viem'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  defaultIntent,
  type Intent,
  intentArbitrary,
  intentCases,
  propertyRuns,
  refusesKnob,
  type SignPayload,
  useConformanceRouter,
} from './conformance-router.ts'
import { jsonResponse, withScriptedNetwork } from './scripted-network.ts'

const PAD = 'bankr'
const router = useConformanceRouter()

/** The fields of @bankr/cli's DeployTokenRequest, read from the type definitions it ships. */
const readDeployTokenRequest = () => {
  const require = createRequire(import.meta.url)
  const typesFile = join(dirname(require.resolve('@bankr/cli')), 'lib', 'api.d.ts')
  const text = readFileSync(typesFile, 'utf8')
  const body = /export interface DeployTokenRequest \{([\s\S]*?)\n\}/.exec(text)?.[1] ?? ''
  const fields = [...body.matchAll(/^ {4}(\w+)(\?)?:/gm)].map(([, name, optional]) => ({
    name: name!,
    required: !optional,
  }))
  const union = /export type FeeRecipientType = ([^;]+);/.exec(text)?.[1] ?? ''
  const feeRecipientTypes = [...union.matchAll(/"([^"]+)"/g)].map(([, value]) => value)
  return { fields, feeRecipientTypes }
}

type RequestPayload = SignPayload & {
  request: {
    method: string
    url: string
    headers: Record<string, string>
    body: DeployTokenRequest
  }
}

let capabilities: Capabilities
let shape: ReturnType<typeof readDeployTokenRequest>
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
  shape = readDeployTokenRequest()
  // deployToken reads its API key from a config file: a throwaway one, never the user's.
  const directory = mkdtempSync(join(tmpdir(), 'bankr-conformance-'))
  writeFileSync(join(directory, 'config.json'), JSON.stringify({ apiKey: 'conformance-test' }))
  setConfigPath(join(directory, 'config.json'))
})

/** The body against the shipped type: known fields only, required ones present, a known fee recipient type. */
const expectDeployTokenRequest = (intent: Intent, payload: RequestPayload) => {
  const { body } = payload.request
  const names = shape.fields.map((field) => field.name)
  expect(names).toContain('tokenName')
  for (const key of Object.keys(body)) expect(names).toContain(key)
  for (const field of shape.fields.filter((candidate) => candidate.required))
    expect(body).toHaveProperty(field.name)
  expect(body).toMatchObject({
    tokenName: intent.name.trim(),
    tokenSymbol: intent.symbol,
    simulateOnly: true,
  })
  const recipient = body.feeRecipient!
  expect(shape.feeRecipientTypes).toContain(recipient.type)
  if (recipient.type === 'wallet') expect(isAddress(recipient.value)).toBe(true)
  expect(recipient).toEqual(intent.feeRecipient ?? { type: 'wallet', value: intent.creator })
  for (const knob of ['description', 'image', 'tweetUrl', 'websiteUrl'] as const)
    if (intent[knob] !== undefined) expect(body[knob]).toBe(intent[knob])
}

/** What @bankr/cli's own deployToken sends for this body, answered by a script. */
const sendThroughCli = async (payload: RequestPayload) => {
  const { requests } = await withScriptedNetwork(
    ({ url }) =>
      url === payload.request.url
        ? jsonResponse({
            success: true,
            tokenAddress: '0x',
            poolId: '0x',
            activityId: 'a',
            chain: 'base',
            simulated: true,
            feeDistribution: {},
          })
        : undefined,
    () => deployToken(payload.request.body),
  )
  return requests
}

describe('bankr payloads against @bankr/cli 0.1.3 DeployTokenRequest and deployToken', () => {
  test('every generated intent gives a body of the shipped type, sent unchanged by deployToken', async () => {
    for (const { label, intent } of intentCases(capabilities)) {
      const payload = (await router.signPayload(intent)) as RequestPayload
      expect(payload.request.method, label).toBe('POST')
      expectDeployTokenRequest(intent, payload)
      const [sent] = await sendThroughCli(payload)
      expect(sent).toEqual({ url: payload.request.url, method: 'POST', body: payload.request.body })
    }
  })

  test('random valid intents give bodies of the shipped type', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        expectDeployTokenRequest(intent, (await router.signPayload(intent)) as RequestPayload)
      }),
      { numRuns: propertyRuns(60) },
    )
  })

  test.each([
    { type: 'wallet', value: 'alice.eth' },
    { type: 'wallet', value: '0x1234' },
    { type: 'wallet', value: '0xd8da6bf26964af9d7eed9e03e53415d37aa96045'.replace('d8da', 'D8da') },
  ])(
    'a wallet fee recipient that is not an EVM address is knob_invalid: %j',
    async (feeRecipient) => {
      const draft = await router.draft({ ...defaultIntent(capabilities, 8453), feeRecipient })
      expect(refusesKnob(draft, 'feeRecipient')).toBe(true)
    },
  )

  test('x, farcaster and ens fee recipients keep their handles', async () => {
    for (const feeRecipient of [
      { type: 'x', value: 'bankrbot' },
      { type: 'farcaster', value: 'dwr' },
      { type: 'ens', value: 'alice.eth' },
    ]) {
      const draft = await router.draft({ ...defaultIntent(capabilities, 8453), feeRecipient })
      expect(draft.ok).toBe(true)
    }
  })
})
