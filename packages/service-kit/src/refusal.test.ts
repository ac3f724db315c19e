import { describe, expect, test } from 'vitest'
import { createApp } from './create-app.ts'
import { ApiError } from './errors.ts'
import { createLogger } from './logger.ts'
import {
  answerOf,
  isRefusal,
  Refused,
  refusal,
  refusalOf,
  refusalResponse,
  returnRefusal,
} from './refusal.ts'

describe('refusal', () => {
  test('behavior: carries status, error, extras and headers, and only what was given', () => {
    expect(refusal(404, 'no such thing')).toEqual({
      ok: false,
      status: 404,
      error: 'no such thing',
    })
    expect(Object.keys(refusal(404, 'no such thing'))).toEqual(['ok', 'status', 'error'])
    expect(refusal(409, 'busy', { orderId: 'o1' }, { 'retry-after': '2' })).toEqual({
      ok: false,
      status: 409,
      error: 'busy',
      extras: { orderId: 'o1' },
      headers: { 'retry-after': '2' },
    })
  })

  test('behavior: isRefusal tells a refusal from a value, and from other { ok: false } shapes', () => {
    expect(isRefusal(refusal(403, 'no'))).toBe(true)
    expect(isRefusal({ ok: true, answer: 1 })).toBe(false)
    // An outbound call's failure carries the upstream's status but is not an answer to give.
    expect(isRefusal({ ok: false, reason: 'timeout', status: 504 })).toBe(false)
    expect(isRefusal({ ok: false, status: '403', error: 'no' })).toBe(false)
    expect(isRefusal(null)).toBe(false)
    expect(isRefusal(undefined)).toBe(false)
  })

  test('behavior: answerOf passes a value through and throws a refusal as an ApiError with its extras and headers', () => {
    const value = { ok: true as const, id: 7 }
    expect(answerOf(value)).toBe(value)
    const thrown = (() => {
      try {
        answerOf(refusal(429, 'slow down', { limit: 'read' }, { 'Retry-After': '3' }))
      } catch (error) {
        return error
      }
    })()
    expect(thrown).toBeInstanceOf(ApiError)
    expect(thrown).toMatchObject({
      status: 429,
      message: 'slow down',
      extras: { limit: 'read' },
      headers: { 'Retry-After': '3' },
    })
  })

  test("behavior: refusalOf returns an ApiError built elsewhere (a limit's 429) with its message, fields and headers", () => {
    expect(
      refusalOf(new ApiError(429, 'too many', { limit: 'read' }, { 'Retry-After': '5' })),
    ).toEqual({
      ok: false,
      status: 429,
      error: 'too many',
      extras: { limit: 'read' },
      headers: { 'Retry-After': '5' },
    })
  })

  test('behavior: a refusal thrown as Refused inside work (a transaction) comes back as data; other errors go on', async () => {
    const refused = refusal(409, 'taken')
    expect(await returnRefusal(async () => 'done')).toBe('done')
    expect(
      await returnRefusal(async () => {
        throw new Refused(refused)
      }),
    ).toBe(refused)
    await expect(
      returnRefusal(async () => {
        throw new Error('a bug')
      }),
    ).rejects.toThrow('a bug')
  })

  test('behavior: refusalResponse and a route that ends in answerOf answer the same status, body and headers', async () => {
    const refused = refusal(409, 'slots full', { slots: 3 }, { 'retry-after': '60' })
    const direct = refusalResponse(refused)
    const app = createApp({
      name: 'refusal-test',
      version: '1.0.0',
      logger: createLogger({ name: 't', level: 'silent' }),
    })
    app.get('/refused', (c) => c.json(answerOf<{ ok: true }>(refused)))
    const routed = await app.request('/refused')
    for (const response of [direct, routed]) {
      expect(response.status).toBe(409)
      expect(response.headers.get('retry-after')).toBe('60')
      expect(response.headers.get('content-type')).toMatch(/^application\/json/)
      expect(await response.text()).toBe('{"slots":3,"error":"slots full"}')
    }
  })
})
