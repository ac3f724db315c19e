import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { checkMany } from './check-many.ts'
import { createSafetyCheck } from './create-safety-check.ts'
import type { SafetyCheck, SafetyVerdict } from './types.ts'

// A fake OpenAI-compatible moderation server on a real port: `input` may be one
// string or an array, answered with one result per text in order; a text
// containing "THREAT" is flagged harassment/threatening. It can be taken down.
let down = false
let received: Array<string | string[]> = []
const server = createServer((request, response) => {
  let raw = ''
  request.on('data', (chunk) => (raw += chunk))
  request.on('end', () => {
    const { input } = JSON.parse(raw) as { input: string | string[] }
    received.push(input)
    response.writeHead(down ? 503 : 200, { 'content-type': 'application/json' })
    const results = (Array.isArray(input) ? input : [input]).map((text) => {
      const flagged = text.includes('THREAT')
      return {
        flagged,
        categories: { harassment: flagged, 'harassment/threatening': flagged },
      }
    })
    response.end(JSON.stringify(down ? { error: { message: 'down' } } : { results }))
  })
})
let url = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  down = false
  received = []
})

const ALLOW: SafetyVerdict = { verdict: 'allow', reason: 'ok', categories: [] }
const UNAVAILABLE: SafetyVerdict = {
  verdict: 'block',
  reason: 'safety check unavailable',
  categories: [],
  unavailable: true,
}
const checked = (batchSize?: number) => {
  const calls: string[] = []
  const safety = createSafetyCheck({
    moderation: { url, timeoutMs: 2_000 },
    onCall: (outcome) => calls.push(outcome),
    ...(batchSize ? { batchSize } : {}),
  })
  return { safety, calls }
}
const lines = (count: number) => Array.from({ length: count }, (_, n) => `a calm line number ${n}`)

describe('the batch safety check (many)', () => {
  test('one moderation call for N texts; verdicts in order; a flagged text in the middle is blocked', async () => {
    const { safety, calls } = checked()
    const texts = [...lines(10), 'a flagged line THREAT', ...lines(20).slice(10)]
    const verdicts = await safety.many!(texts, { kind: 'intro' })
    expect(received).toEqual([texts])
    expect(calls).toEqual(['ok'])
    expect(verdicts).toHaveLength(21)
    expect(verdicts[10]).toEqual({
      verdict: 'block',
      reason: 'moderation: harassment/threatening',
      categories: ['moderation:harassment', 'moderation:harassment/threatening'],
    })
    expect(verdicts.filter((_, n) => n !== 10)).toEqual(Array(20).fill(ALLOW))
    // The same verdicts the single check gives each text.
    for (const [n, text] of texts.entries())
      expect(await safety(text, { kind: 'intro' })).toEqual(verdicts[n])
  })

  test('texts go in chunks of batchSize, one call each', async () => {
    const { safety, calls } = checked(4)
    expect(await safety.many!(lines(10))).toEqual(Array(10).fill(ALLOW))
    expect(received.map((input) => input.length)).toEqual([4, 4, 2])
    expect(calls).toEqual(['ok', 'ok', 'ok'])
  })

  test('the endpoint down: every text sent is blocked as unavailable, each call counted as an error', async () => {
    const { safety, calls } = checked(4)
    down = true
    expect(await safety.many!([...lines(6), 'send nudes'])).toEqual([
      ...Array(6).fill(UNAVAILABLE),
      expect.objectContaining({ verdict: 'block', reason: 'sexual solicitation' }),
    ])
    expect(calls).toEqual(['error', 'error'])
  })

  test('a body with fewer results than texts fails the chunk closed', async () => {
    const short = createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ results: [{ flagged: false, categories: {} }] }))
      })
    })
    await new Promise<void>((resolve) => short.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = short.address() as AddressInfo
      const safety = createSafetyCheck({ moderation: { url: `http://127.0.0.1:${port}/v1` } })
      expect(await safety.many!(lines(3))).toEqual(Array(3).fill(UNAVAILABLE))
    } finally {
      short.close()
    }
  })

  test('the local rules still block without a call; only texts that passed them are sent', async () => {
    const { safety, calls } = checked()
    const verdicts = await safety.many!(['call me at 415 555 0199', '   ', 'send nudes'])
    expect(verdicts.map((verdict) => verdict.reason)).toEqual([
      'personal data: phone',
      'empty text',
      'sexual solicitation',
    ])
    expect(received).toEqual([])
    expect(calls).toEqual([])
    await safety.many!(['send nudes', 'a calm line', 'that movie was shit'])
    expect(received).toEqual([['a calm line', 'that movie was shit']])
  })

  test('without an endpoint the local rules decide and nothing is called', async () => {
    const local = createSafetyCheck({ fetch: () => Promise.reject(new Error('no network')) })
    expect(await local.many!(['a calm line', 'kill yourself'])).toEqual([
      ALLOW,
      expect.objectContaining({ verdict: 'block', reason: 'harassment or threat' }),
    ])
  })
})

describe('checkMany', () => {
  test('uses the batch form: each distinct text once, verdicts back in the order asked', async () => {
    const { safety } = checked()
    const verdicts = await checkMany(safety, ['one THREAT', 'two', 'one THREAT', 'three'])
    expect(received).toEqual([['one THREAT', 'two', 'three']])
    expect(verdicts.map((verdict) => verdict.verdict)).toEqual(['block', 'allow', 'block', 'allow'])
  })

  test('a check without a batch form (a plain function) is asked once per distinct text', async () => {
    const asked: string[] = []
    const plain: SafetyCheck = async (text) => {
      asked.push(text)
      return text === 'bad' ? { verdict: 'block', reason: 'no', categories: [] } : ALLOW
    }
    const verdicts = await checkMany(plain, ['good', 'bad', 'good'], { kind: 'intro' })
    expect(asked.sort()).toEqual(['bad', 'good'])
    expect(verdicts.map((verdict) => verdict.verdict)).toEqual(['allow', 'block', 'allow'])
  })

  test('one text goes through the single check', async () => {
    const { safety } = checked()
    await checkMany(safety, ['a calm line', 'a calm line'])
    expect(received).toEqual(['a calm line'])
  })
})
