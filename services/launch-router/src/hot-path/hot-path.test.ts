import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLogger, type RunningServer } from '@agents/service-kit'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildApp } from '../app.ts'
import { readConfig } from '../config.ts'
import { defaultPadsDirectory, loadMatrix, readPadFiles } from '../matrix/load-matrix.ts'
import { getCapabilities } from '../operations/get-capabilities.ts'
import { listNetworks } from '../operations/list-networks.ts'
import { listPads } from '../operations/list-pads.ts'
import type { MinerPool } from '../salt/miner-pool.ts'
import { startLaunchRouter } from '../start.ts'
import { CREATOR } from '../testing.ts'
import { answerOperation } from './answer-operation.ts'
import { createHotPath } from './create-hot-path.ts'
import { precomputeAnswers } from './precompute-answers.ts'

// The matrix the router loads at start-up, whatever pads it holds.
const matrix = loadMatrix(readPadFiles(defaultPadsDirectory))
const answers = precomputeAnswers(matrix)

type Raw = { status: number; headers: string[]; body: string }

/** One POST, answered as bytes: status, raw header lines in order (Date dropped), body. */
const post = (url: string, path: string, body: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const outgoing = request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    })
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = []
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
      incoming.on('end', () => {
        const headers: string[] = []
        for (let index = 0; index < incoming.rawHeaders.length; index += 2) {
          const name = incoming.rawHeaders[index]!
          if (name !== 'Date') headers.push(`${name}: ${incoming.rawHeaders[index + 1]}`)
        }
        resolve({ status: incoming.statusCode!, headers, body: Buffer.concat(chunks).toString() })
      })
    })
    outgoing.on('error', reject)
    outgoing.end(body)
  })

const start = (hotPath: boolean, env: Record<string, string> = {}) =>
  startLaunchRouter(
    readConfig({
      PORT: '0',
      LOG_LEVEL: 'silent',
      MINER_THREADS: '1',
      RATE_LIMIT_READ: '1000000/60',
      ...env,
    }),
    { processMetrics: false, hotPath },
  )

const intentOf = (pad: (typeof matrix.pads)[number]) => ({
  name: 'Hot Path',
  symbol: 'HOT',
  chainId: pad.chains[0],
  pad: pad.id,
  creator: CREATOR,
})

/** Every request the hot path may answer, and its neighbours that it hands to the app. */
const requests: Array<[string, string]> = [
  ['list_pads', '{}'],
  ['list_networks', '{}'],
  ['list_pads', '{"extra":1}'],
  ['list_networks', '{not json'],
  ['get_capabilities', '{"pad":"no-such-pad"}'],
  ['draft_intent', '{"intent":{"pad":"no-such-pad"}}'],
  ['get_sign_payload', '{"intent":[]}'],
  ...matrix.pads.flatMap((pad): Array<[string, string]> => {
    const intent = JSON.stringify({ intent: intentOf(pad) })
    const bad = JSON.stringify({ intent: { ...intentOf(pad), symbol: 'not ascii é' } })
    return [
      ['get_capabilities', JSON.stringify({ pad: pad.id })],
      ['draft_intent', intent],
      ['draft_intent', bad],
      ['get_sign_payload', intent],
      ['simulate_launch', intent],
      ['get_sign_payload', bad],
    ]
  }),
]

describe('the hot path', () => {
  let hot: RunningServer
  let app: RunningServer
  beforeAll(async () => {
    ;[hot, app] = await Promise.all([start(true), start(false)])
  })
  afterAll(() => Promise.all([hot.close(), app.close()]))

  test('answers list_pads, list_networks and every pad’s get_capabilities from bytes equal to the computed answers', () => {
    expect(answerOperation({ matrix, answers }, 'list_pads', {})?.toString()).toBe(
      JSON.stringify(listPads(matrix)),
    )
    expect(answerOperation({ matrix, answers }, 'list_networks', {})?.toString()).toBe(
      JSON.stringify(listNetworks(matrix)),
    )
    for (const pad of matrix.pads)
      expect(
        answerOperation({ matrix, answers }, 'get_capabilities', { pad: pad.id })?.toString(),
      ).toBe(JSON.stringify(getCapabilities(matrix, { pad: pad.id })))
  })

  test('answers every operation, for every pad in the loaded matrix, byte for byte as the app does through HTTP', async () => {
    for (const [operation, body] of requests) {
      const path = `/api/v1/${operation}`
      const [fromHot, fromApp] = [await post(hot.url, path, body), await post(app.url, path, body)]
      // The read window's reset (t=) may cross a second between the two routers under load.
      const steady = ({ headers, ...rest }: Raw) => ({
        ...rest,
        headers: headers.map((line) => line.replace(/;t=\d+$/, ';t=N')),
      })
      expect({ operation, sent: body, ...steady(fromHot) }).toEqual({
        operation,
        sent: body,
        ...steady(fromApp),
      })
    }
  })
})

describe('the hot path under a spent read limit', () => {
  let hot: RunningServer
  let app: RunningServer
  beforeAll(async () => {
    ;[hot, app] = await Promise.all([
      start(true, { RATE_LIMIT_READ: '2/60' }),
      start(false, { RATE_LIMIT_READ: '2/60' }),
    ])
  })
  afterAll(() => Promise.all([hot.close(), app.close()]))

  test('counts each request once and refuses the third with the app’s 429, headers and body', async () => {
    const seen: Raw[][] = []
    for (const server of [hot, app]) {
      const answers: Raw[] = []
      for (let index = 0; index < 3; index++)
        answers.push(await post(server.url, '/api/v1/list_pads', '{}'))
      seen.push(answers)
    }
    const [fromHot, fromApp] = seen as [Raw[], Raw[]]
    expect(fromHot.map((answer) => answer.status)).toEqual([200, 200, 429])
    // The window's reset may cross a second between the two routers.
    const steady = (answers: Raw[]) =>
      answers.map(({ headers, ...rest }) => ({
        ...rest,
        body: rest.body.replace(/\d+ s\b/g, 'N s').replace(/"retryAfter":\d+/, '"retryAfter":N'),
        headers: headers.map((line) =>
          line.replace(/t=\d+/, 't=N').replace(/^Retry-After: \d+$/, 'Retry-After: N'),
        ),
      }))
    expect(steady(fromHot)).toEqual(steady(fromApp))
  })
})

describe('a bug behind the hot path', () => {
  test('is a 500 from its error boundary, never a silent hand-over to the app; a refusal still goes to the app', async () => {
    // A fault inside draftIntent, which get_sign_payload and simulate_launch run too.
    const broken = {
      ...matrix,
      knobValidators: {
        get: () => {
          throw new Error('a bug in draftIntent')
        },
      },
    } as unknown as typeof matrix
    const handedOver: string[] = []
    const logger = createLogger({ name: 'hot-path-test', level: 'silent' })
    // The app only lends the hot path its routes' declared limits here: nothing reaches it to mine.
    const app = buildApp({
      matrix: broken,
      answers,
      pool: {} as MinerPool,
      logger,
      maxBodyBytes: 64 * 1024,
      salt: { maxIterations: 1, timeBudgetMs: 1 },
      baseUrl: () => 'http://127.0.0.1',
    })
    const hotPath = createHotPath({
      deps: { matrix: broken, answers },
      app,
      logger,
      maxBodyBytes: 64 * 1024,
    })
    const server = createServer(
      hotPath((incoming, outgoing) => {
        handedOver.push(incoming.url ?? '')
        outgoing.writeHead(422, { 'content-type': 'application/json' }).end('{"error":"app"}')
      }),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const pad = matrix.pads.find((candidate) => candidate.kind !== 'party-factory')!
      const body = JSON.stringify({ intent: intentOf(pad) })
      for (const operation of ['draft_intent', 'get_sign_payload', 'simulate_launch']) {
        const answer = await post(url, `/api/v1/${operation}`, body)
        expect({ operation, status: answer.status, body: answer.body }).toEqual({
          operation,
          status: 500,
          body: '{"error":"internal"}',
        })
      }
      expect(handedOver).toEqual([])
      // An unknown pad is a refusal, which the hot path leaves to the app to answer.
      const refused = await post(url, '/api/v1/get_capabilities', '{"pad":"no-such-pad"}')
      expect(refused.body).toBe('{"error":"app"}')
      expect(handedOver).toEqual(['/api/v1/get_capabilities'])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
