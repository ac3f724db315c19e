import { describe, expect, test } from 'vitest'
import { type VerifyWebhookParameters, verifyWebhook } from './webhook.ts'
import { signWebhookBody } from './webhook-signature.ts'

const secret = 'whsec-test-0123456789abcdef'
const now = Date.UTC(2026, 5, 1, 12, 0, 0)
const nowSeconds = Math.floor(now / 1000)

const bodyText = JSON.stringify({
  webhook_type: 'status.updated',
  session_id: '11111111-2222-3333-4444-555555555555',
  status: 'Approved',
  vendor_data: 'owner:42',
  timestamp: nowSeconds,
  decision: { id_verification: { status: 'Approved', age: 34 } },
})

const delivery = (
  raw: string | Uint8Array = bodyText,
  overrides: Partial<VerifyWebhookParameters> = {},
): VerifyWebhookParameters => {
  const rawBody = typeof raw === 'string' ? new TextEncoder().encode(raw) : raw
  return {
    rawBody,
    signature: signWebhookBody(rawBody, secret),
    timestamp: String(nowSeconds),
    secret,
    now,
    ...overrides,
  }
}

const reasonOf = (parameters: VerifyWebhookParameters) => {
  const result = verifyWebhook(parameters)
  return result.ok ? 'accepted' : result.reason
}

test('default', () => {
  expect(verifyWebhook(delivery())).toMatchInlineSnapshot(`
    {
      "event": {
        "age": 34,
        "decision": {
          "id_verification": {
            "age": 34,
            "status": "Approved",
          },
        },
        "sessionId": "11111111-2222-3333-4444-555555555555",
        "status": "Approved",
        "vendorData": "owner:42",
        "webhookType": "status.updated",
      },
      "ok": true,
    }
  `)
})

test('behavior: a Buffer body and an uppercase signature', () => {
  const rawBody = Buffer.from(bodyText)
  const signature = signWebhookBody(rawBody, secret).toUpperCase()
  expect(reasonOf(delivery(rawBody, { signature }))).toBe('accepted')
})

describe('signature', () => {
  test('behavior: one byte of the body changed', () => {
    const signed = delivery()
    const tampered = Uint8Array.from(signed.rawBody)
    tampered[tampered.length - 3]! ^= 0x01
    expect(reasonOf({ ...signed, rawBody: tampered })).toBe('bad signature')
  })

  test('behavior: whitespace added (the exact bytes are signed)', () => {
    const signed = delivery()
    expect(reasonOf({ ...signed, rawBody: new TextEncoder().encode(`${bodyText} `) })).toBe(
      'bad signature',
    )
  })

  test('behavior: wrong secret', () => {
    expect(reasonOf(delivery(bodyText, { secret: 'another-secret-0123456789' }))).toBe(
      'bad signature',
    )
  })

  test('behavior: wrong length or not hex', () => {
    const good = delivery().signature!
    for (const signature of [good.slice(0, 63), `${good}00`, `${good.slice(0, 62)}zz`, 'sha256=']) {
      expect(reasonOf(delivery(bodyText, { signature }))).toBe('bad signature')
    }
  })

  test('behavior: missing headers', () => {
    expect(reasonOf(delivery(bodyText, { signature: undefined }))).toBe('missing signature')
    expect(reasonOf(delivery(bodyText, { signature: '' }))).toBe('missing signature')
    expect(reasonOf(delivery(bodyText, { timestamp: undefined }))).toBe('missing timestamp')
    expect(reasonOf(delivery(bodyText, { timestamp: null }))).toBe('missing timestamp')
  })

  test('behavior: an empty secret is a configuration fault', () => {
    expect(() => verifyWebhook(delivery(bodyText, { secret: '' }))).toThrow(/secret/)
  })
})

describe('timestamp', () => {
  test('behavior: 300 s either way passes, 301 s does not', () => {
    for (const offset of [-300, 300]) {
      expect(reasonOf(delivery(bodyText, { timestamp: String(nowSeconds + offset) }))).toBe(
        'accepted',
      )
    }
    for (const offset of [-301, 301, 86_400]) {
      expect(reasonOf(delivery(bodyText, { timestamp: String(nowSeconds + offset) }))).toBe(
        'stale timestamp',
      )
    }
  })

  test('behavior: not Unix seconds', () => {
    for (const timestamp of ['soon', '1.5e9', '-1', `${now}`, ' 1780000000']) {
      expect(reasonOf(delivery(bodyText, { timestamp }))).toBe('stale timestamp')
    }
  })

  test('behavior: the timestamp is not signed, only checked', () => {
    expect(reasonOf(delivery(bodyText, { timestamp: String(nowSeconds - 120) }))).toBe('accepted')
  })
})

describe('body', () => {
  test('behavior: invalid JSON with a valid signature is a malformed body', () => {
    expect(reasonOf(delivery('{"webhook_type": "status.upd'))).toBe('malformed body')
  })

  test('behavior: invalid JSON with a bad signature is a bad signature', () => {
    const signed = delivery('{"webhook_type": "status.upd')
    expect(reasonOf({ ...signed, signature: '0'.repeat(64) })).toBe('bad signature')
  })

  test('behavior: not UTF-8, or not the expected shape', () => {
    expect(reasonOf(delivery(Uint8Array.of(0xff, 0xfe, 0x7b)))).toBe('malformed body')
    expect(reasonOf(delivery('[1, 2]'))).toBe('malformed body')
    expect(reasonOf(delivery('{"status": "Approved"}'))).toBe('malformed body')
    const noSession = JSON.stringify({ webhook_type: 'status.updated', status: 'Approved' })
    expect(reasonOf(delivery(noSession))).toBe('malformed body')
  })

  test('behavior: other event types may carry no session', () => {
    const entity = JSON.stringify({ webhook_type: 'user.status.updated', vendor_data: 7 })
    expect(verifyWebhook(delivery(entity))).toEqual({
      ok: true,
      event: { webhookType: 'user.status.updated', sessionId: '', status: '', age: undefined },
    })
  })

  test('behavior: the age from a v3 date of birth', () => {
    const v3 = JSON.stringify({
      webhook_type: 'status.updated',
      session_id: 's-1',
      status: 'Approved',
      decision: { id_verifications: [{ status: 'Approved', date_of_birth: '2008-06-01' }] },
    })
    const result = verifyWebhook(delivery(v3))
    expect(result.ok && result.event.age).toBe(18)
  })
})
