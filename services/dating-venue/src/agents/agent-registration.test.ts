import { postJson } from '@agents/service-kit'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { Venue } from '../start.ts'
import { createOwner } from '../test-helpers.ts'
import { useTestVenue } from '../testing/venue-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'agent registration on $name',
  ({ open }) => {
    let venue: Venue
    useTestVenue(open, (started) => {
      venue = started
    })

    describe('agent endpoints', () => {
      it('needs publicKey or callbackUrl; https callbacks only', async () => {
        for (const body of [
          { runtime: 'claude' },
          { runtime: 'gpt', publicKey: '0x0000000000000000000000000000000000000001' },
          { runtime: 'claude', callbackUrl: 'http://agent.example/cb' },
          { runtime: 'claude', callbackUrl: 'https://10.0.0.8/cb' },
          { runtime: 'claude', publicKey: 'nope' },
          {
            runtime: 'claude',
            publicKey: '0x0000000000000000000000000000000000000001',
            ownerId: 0,
          },
        ]) {
          const answer = await postJson(`${venue.url}/api/intake/agent`, body)
          expect(answer.status, JSON.stringify(body)).toBe(400)
          expect(answer.json.error).toBe('invalid agent')
        }
      })

      it('binding an endpoint to an owner needs that owner credential', async () => {
        const owner = await createOwner(venue)
        const other = await createOwner(venue)
        const body = {
          runtime: 'claude',
          publicKey: privateKeyToAccount(generatePrivateKey()).address,
          ownerId: owner.ownerId,
        }
        expect((await postJson(`${venue.url}/api/intake/agent`, body)).status).toBe(401)
        expect(
          (
            await postJson(`${venue.url}/api/intake/agent`, body, {
              authorization: `Bearer ${other.credential}`,
            })
          ).status,
        ).toBe(403)
        expect(
          (
            await postJson(`${venue.url}/api/intake/agent`, body, {
              authorization: 'Bearer vo_1_forged',
            })
          ).status,
        ).toBe(403)
        expect(
          (
            await postJson(`${venue.url}/api/intake/agent`, body, {
              authorization: `Bearer ${owner.credential}`,
            })
          ).status,
        ).toBe(200)
      })
    })
  },
)
