import { generateKeyPairSync } from 'node:crypto'
import {
  type CdpApiKey,
  type CdpFacilitator,
  createCdpApiKey,
  serveLocal,
  startCdpFacilitator,
} from '@agents/devnet'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PaymentsConfigError } from './errors.ts'
import { facilitatorSettle, facilitatorVerify } from './facilitator-client.ts'
import { paymentsHealth } from './health.ts'
import type { LedgerDatabase } from './ledger/ledger.ts'
import { paymentsFromEnv } from './payments-from-env.ts'

// Coinbase's facilitator authentication, from the settings to the wire:
// the payments client signs with Coinbase's SDK, and the CDP stand-in
// (@agents/devnet) checks each JWT as CDP does before forwarding the call.
// Here it forwards to a plain upstream; the chain tier's
// cdp-facilitator.chain.test.ts pays through the devnet's real facilitator.
const PAY_TO = '0x1111111111111111111111111111111111111111'
const SOLANA_PAY_TO = 'So11111111111111111111111111111111111111112'
const FEE_PAYER = 'FeePayer11111111111111111111111111111111111'
const ec = createCdpApiKey('ec')
const ed = createCdpApiKey('ed25519')
let upstream: Awaited<ReturnType<typeof serveLocal>>
let cdp: CdpFacilitator
// No sale happens here, so the ledger is never reached (the chain test sells).
const db = {} as LedgerDatabase

beforeAll(async () => {
  const app = new Hono()
  app.post('/verify', (c) => c.json({ isValid: true, payer: PAY_TO }))
  app.post('/settle', (c) =>
    c.json({ success: true, transaction: '0xabc', network: 'eip155:8453' }),
  )
  app.get('/supported', (c) =>
    c.json({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: 'eip155:8453' },
        {
          x402Version: 2,
          scheme: 'exact',
          network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
          extra: { feePayer: FEE_PAYER },
        },
      ],
    }),
  )
  upstream = await serveLocal(app.fetch)
  cdp = await startCdpFacilitator({ upstream: upstream.url, keys: [ec, ed] })
})
afterAll(async () => {
  await cdp?.stop()
  await upstream?.close()
})

const cdpEnv = (key: Pick<CdpApiKey, 'id' | 'secret'>, more: Record<string, string> = {}) => ({
  PAYMENTS_FACILITATOR_URL: cdp.url,
  PAYMENTS_PAY_TO: PAY_TO,
  PAYMENTS_FACILITATOR_AUTH: 'cdp',
  CDP_API_KEY_ID: key.id,
  CDP_API_KEY_SECRET: key.secret,
  ...more,
})

/** The facilitator part of /health (the rest reads the ledger and chains). */
const facilitatorHealth = async (deps: ReturnType<typeof paymentsFromEnv>) =>
  (await paymentsHealth({ ...deps, ledger: { ...deps.ledger, countUnresolved: async () => 0 } }))
    .facilitator

const problemsOf = (env: Record<string, string | undefined>) => {
  try {
    paymentsFromEnv(env, { db })
    return []
  } catch (error) {
    expect(error).toBeInstanceOf(PaymentsConfigError)
    return (error as PaymentsConfigError).problems
  }
}

const pem = (kind: 'rsa' | 'ec-p384' | 'ed25519') => {
  const { privateKey } =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 1024 })
      : kind === 'ec-p384'
        ? generateKeyPairSync('ec', { namedCurve: 'P-384' })
        : generateKeyPairSync('ed25519')
  return privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
}

describe('PAYMENTS_FACILITATOR_AUTH=cdp', () => {
  test.each([
    ['ES256 (EC P-256 PEM)', ec],
    ['EdDSA (base64 Ed25519)', ed],
  ])(
    'with a %s key, /verify, /settle and /supported each carry a fresh JWT CDP accepts',
    async (_kind, key) => {
      const before = cdp.calls().length
      // A Solana payee makes the start-up ask /supported for the fee payer.
      const deps = paymentsFromEnv(cdpEnv(key, { PAYMENTS_SOLANA_PAY_TO: SOLANA_PAY_TO }), { db })
      await deps.ready
      const facilitator = deps.x402!.facilitator
      expect(deps.x402!.rails.map((rail) => rail.extra?.feePayer)).toEqual([undefined, FEE_PAYER])
      expect(await facilitatorVerify(facilitator, { x402Version: 2 })).toEqual({
        ok: true,
        value: { isValid: true, payer: PAY_TO },
      })
      expect(await facilitatorVerify(facilitator, { x402Version: 2 })).toMatchObject({ ok: true })
      expect(await facilitatorSettle(facilitator, { x402Version: 2 })).toMatchObject({
        ok: true,
        value: { success: true, transaction: '0xabc' },
      })
      expect(await facilitatorHealth(deps)).toBe('ok')

      const calls = cdp.calls().slice(before)
      expect(calls.map((call) => [call.method, call.path, call.status, call.kid])).toEqual([
        ['GET', '/platform/v2/x402/supported', 200, key.id],
        ['POST', '/platform/v2/x402/verify', 200, key.id],
        ['POST', '/platform/v2/x402/verify', 200, key.id],
        ['POST', '/platform/v2/x402/settle', 200, key.id],
        ['GET', '/platform/v2/x402/supported', 200, key.id],
      ])
      // One JWT per call: the stand-in refuses a spent nonce, and none repeats.
      expect(new Set(calls.map((call) => call.nonce)).size).toBe(calls.length)
    },
  )

  test('a key the facilitator does not know: every call is refused, and the service reads the facilitator as failing', async () => {
    const deps = paymentsFromEnv(cdpEnv(createCdpApiKey('ec')), { db })
    await deps.ready
    expect(await facilitatorVerify(deps.x402!.facilitator, {})).toEqual({
      ok: false,
      detail: 'facilitator /verify answered 401',
      reached: true,
    })
    expect(await facilitatorHealth(deps)).toBe('unavailable')
    expect(cdp.calls().at(-1)).toMatchObject({
      status: 401,
      refused: expect.stringMatching(/^unknown key /),
    })
  })

  test('a secret pasted on one line with \\n escapes, or as PKCS#8, is read', async () => {
    const oneLine = { id: ec.id, secret: ec.secret.trim().replaceAll('\n', '\\n') }
    expect(problemsOf(cdpEnv(oneLine))).toEqual([])
    const deps = paymentsFromEnv(cdpEnv(oneLine), { db })
    expect(await facilitatorVerify(deps.x402!.facilitator, {})).toMatchObject({ ok: true })
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    expect(problemsOf(cdpEnv({ id: ec.id, secret: pkcs8 }))).toEqual([])
  })

  test('errors: missing or unusable key material stops the service at start, each problem named', () => {
    expect(problemsOf(cdpEnv({ id: '', secret: '' }))).toEqual([
      'PAYMENTS_FACILITATOR_AUTH=cdp needs CDP_API_KEY_ID',
      'PAYMENTS_FACILITATOR_AUTH=cdp needs CDP_API_KEY_SECRET',
    ])
    const neither =
      'CDP_API_KEY_SECRET is neither an EC P-256 PEM key nor a base64 Ed25519 key (64 bytes: seed and public key)'
    expect(problemsOf(cdpEnv({ id: ec.id, secret: 'my-api-secret' }))).toEqual([neither])
    // An Ed25519 seed alone (32 bytes) is not what CDP hands out.
    expect(
      problemsOf(
        cdpEnv({
          id: ed.id,
          secret: Buffer.from(ed.secret, 'base64').subarray(0, 32).toString('base64'),
        }),
      ),
    ).toEqual([neither])
    expect(
      problemsOf(
        cdpEnv({
          id: ec.id,
          secret: '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----',
        }),
      ),
    ).toEqual(['CDP_API_KEY_SECRET is a PEM block but no readable private key'])
    expect(problemsOf(cdpEnv({ id: ec.id, secret: pem('ec-p384') }))).toEqual([
      'CDP_API_KEY_SECRET is a PEM ec secp384r1 key; CDP signs with an EC P-256 PEM key or a base64 Ed25519 key',
    ])
    expect(problemsOf(cdpEnv({ id: ec.id, secret: pem('rsa') }))).toEqual([
      'CDP_API_KEY_SECRET is a PEM rsa key; CDP signs with an EC P-256 PEM key or a base64 Ed25519 key',
    ])
    expect(problemsOf(cdpEnv({ id: ec.id, secret: pem('ed25519') }))).toEqual([
      'CDP_API_KEY_SECRET is a PEM ed25519 key; CDP signs with an EC P-256 PEM key or a base64 Ed25519 key',
    ])
    // The second half of an Ed25519 secret is its public key: another key's is a typo or a mix-up.
    const other = Buffer.from(createCdpApiKey('ed25519').secret, 'base64').subarray(32)
    const mixed = Buffer.concat([Buffer.from(ed.secret, 'base64').subarray(0, 32), other])
    expect(problemsOf(cdpEnv({ id: ed.id, secret: mixed.toString('base64') }))).toEqual([
      "CDP_API_KEY_SECRET's Ed25519 public half does not belong to its seed",
    ])
    expect(problemsOf(cdpEnv(ec, { PAYMENTS_FACILITATOR_AUTH: 'jwt' }))[0]).toMatch(
      /^PAYMENTS_FACILITATOR_AUTH: /,
    )
    expect(
      problemsOf(cdpEnv(ec, { PAYMENTS_FACILITATOR_HEADERS: '{"Authorization":"Bearer x"}' })),
    ).toEqual([
      'PAYMENTS_FACILITATOR_HEADERS sets authorization, which PAYMENTS_FACILITATOR_AUTH=cdp sends itself',
    ])
  })

  test('errors: production refuses to start with a bad key, or with CDP and no authentication', () => {
    const production = {
      NODE_ENV: 'production',
      PAYMENTS_FACILITATOR_URL: 'https://api.cdp.coinbase.com/platform/v2/x402',
      PAYMENTS_BASE_RPC_URL: 'https://base.rpc.example.com',
      PAYMENTS_PAY_TO: PAY_TO,
    }
    expect(() =>
      paymentsFromEnv(
        {
          ...production,
          PAYMENTS_FACILITATOR_AUTH: 'cdp',
          CDP_API_KEY_ID: ed.id,
          CDP_API_KEY_SECRET: 'x',
        },
        { db },
      ),
    ).toThrow(/CDP_API_KEY_SECRET is neither/)
    expect(problemsOf(production)).toEqual([
      'api.cdp.coinbase.com needs PAYMENTS_FACILITATOR_AUTH=cdp with CDP_API_KEY_ID and CDP_API_KEY_SECRET',
    ])
    expect(
      problemsOf({
        ...production,
        PAYMENTS_FACILITATOR_AUTH: 'cdp',
        CDP_API_KEY_ID: ed.id,
        CDP_API_KEY_SECRET: ed.secret,
      }),
    ).toEqual([])
  })
})
