import { createServer } from 'node:http'
import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'agent verification on $name',
  ({ open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })

    describe('agent endpoints', () => {
      it('issues a nonce <prefix>:<uuid>:<epoch_ms>; a signature by the registered key activates it', async () => {
        const account = privateKeyToAccount(generatePrivateKey())
        const before = Date.now()
        const registered = await postJson(`${venue.url}/api/intake/agent`, {
          runtime: 'codex',
          publicKey: account.address,
        })
        expect(registered.status).toBe(200)
        const [prefix, uuid, epoch] = registered.json.challengeNonce.split(':')
        expect(prefix).toBe('venue')
        expect(uuid).toMatch(/^[0-9a-f-]{36}$/)
        expect(Number(epoch)).toBeGreaterThanOrEqual(before)
        const stranger = privateKeyToAccount(generatePrivateKey())
        const wrong = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
          signature: await stranger.signMessage({ message: registered.json.challengeNonce }),
        })
        expect(wrong).toMatchObject({
          status: 422,
          json: { active: false, reason: 'challenge not satisfied' },
        })
        const right = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
          signature: await account.signMessage({ message: registered.json.challengeNonce }),
        })
        expect(right).toMatchObject({
          status: 200,
          json: { active: true, reason: 'verified:signature' },
        })
        expect(right.json.agentCredential).toMatch(/^va_\d+_/)
      })

      it('echoToken equal to the nonce; unknown endpoints; expired nonces', async () => {
        const registered = await postJson(`${venue.url}/api/intake/agent`, {
          runtime: 'hermes',
          publicKey: privateKeyToAccount(generatePrivateKey()).address,
        })
        const wrong = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
          echoToken: 'venue:nope',
        })
        expect(wrong.status).toBe(422)
        const right = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: registered.json.id,
          echoToken: registered.json.challengeNonce,
        })
        expect(right.json).toMatchObject({ active: true, reason: 'verified:callback' })
        const unknown = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: 999_999,
          echoToken: 'x',
        })
        expect(unknown).toMatchObject({
          status: 422,
          json: { active: false, reason: 'unknown endpoint' },
        })
        expect(
          (await postJson(`${venue.url}/api/intake/agent/verify`, { endpointId: 0 })).json.error,
        ).toBe('invalid verify')

        const stale = await postJson(`${venue.url}/api/intake/agent`, {
          runtime: 'other',
          callbackUrl: 'https://agent.example/cb',
        })
        await venue.deps.database.client.query(
          `UPDATE agent_endpoints SET nonce_expires_at = now() - interval '1 second' WHERE id = $1`,
          [stale.json.id],
        )
        const late = await postJson(`${venue.url}/api/intake/agent/verify`, {
          endpointId: stale.json.id,
          echoToken: stale.json.challengeNonce,
        })
        expect(late).toMatchObject({ status: 422, json: { reason: 'challenge not satisfied' } })
      })

      it('the venue posts {challenge} to the callback and accepts {echo}', async () => {
        let seen: unknown
        let honest = true
        const callback = createServer((request, response) => {
          let raw = ''
          request.on('data', (chunk) => (raw += chunk))
          request.on('end', () => {
            seen = JSON.parse(raw)
            response.setHeader('content-type', 'application/json')
            response.end(
              JSON.stringify({ echo: honest ? (seen as { challenge: string }).challenge : 'nope' }),
            )
          })
        })
        await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
        const port = (callback.address() as { port: number }).port
        try {
          const registered = await postJson(`${venue.url}/api/intake/agent`, {
            runtime: 'openclaw',
            callbackUrl: `http://127.0.0.1:${port}/challenge`,
          })
          honest = false
          const refused = await postJson(`${venue.url}/api/intake/agent/verify`, {
            endpointId: registered.json.id,
          })
          expect(refused).toMatchObject({
            status: 422,
            json: { reason: 'challenge not satisfied' },
          })
          honest = true
          const verified = await postJson(`${venue.url}/api/intake/agent/verify`, {
            endpointId: registered.json.id,
          })
          expect(seen).toEqual({ challenge: registered.json.challengeNonce })
          expect(verified).toMatchObject({
            status: 200,
            json: { active: true, reason: 'verified:callback' },
          })
        } finally {
          callback.close()
        }
      })
    })
  },
)
