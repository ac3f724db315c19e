import { randomUUID } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { chatDocItem } from '../intake/submit-doc-item.ts'
import { topupItem } from '../orders/topup-item.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { PAYER_COLUMNS } from './testing/columns-holding.ts'
import { bearer, CONTACT_B, erasureVenue, HEART_A, HEART_B } from './testing/erasure-venue.ts'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure of orders, payments and credits on $name',
  ({ open }) => {
    const t = erasureVenue(open)
    const { call, sql, member, payThroughLedger, columnsHolding, expectUsed } = t

    it('an agent-represented owner erased by its credential: no column of any table holds the wallet that paid for its doc', async () => {
      const m = await member(
        'signal: oiuae-paid',
        HEART_A,
        privateKeyToAccount(generatePrivateKey()),
      )
      expect(await columnsHolding(m.account.address)).toEqual(
        expect.arrayContaining([
          ...PAYER_COLUMNS,
          'owners.wallet',
          'heart_files.payment_reference',
        ]),
      )
      const revenueBefore = await sql(`SELECT sum(amount_atomic)::text AS sum FROM revenue`)
      expect(
        (await call('DELETE', `/api/owners/${m.ownerId}`, undefined, bearer(m.credential))).json,
      ).toMatchObject({ erased: true, ownerId: m.ownerId })
      expect(await columnsHolding(m.account.address)).toEqual([])
      expect(await sql(`SELECT sum(amount_atomic)::text AS sum FROM revenue`)).toEqual(
        revenueBefore,
      )
      await expectUsed(m.payment)
    }, 60_000)

    it('a chat-page human erased by its session: no column of any table holds the wallets that paid for its doc and its credits', async () => {
      const human = privateKeyToAccount(generatePrivateKey())
      const friend = privateKeyToAccount(generatePrivateKey())
      const chat = await signInToChat(t.venue.url, { account: human })
      const handle = `chatter-${randomUUID().slice(0, 8)}`
      // Its doc, paid by a friend's wallet (the owner is the signed-in one), and a top-up it paid.
      const doc = await payThroughLedger(
        chatDocItem,
        {
          wallet: chat.wallet,
          handle,
          heart: HEART_B as never,
          contactRefSealed: t.venue.deps.sealer.seal(CONTACT_B),
          homeMarket: 'other',
          activeMarket: 'remote',
        },
        friend.address,
        `submit-doc:${chat.wallet}:${randomUUID()}`,
      )
      const topup = await payThroughLedger(
        topupItem,
        { wallet: chat.wallet },
        human.address,
        `topup:${chat.wallet}:${randomUUID()}`,
      )
      expect(topup.fulfilment.credited).toBeGreaterThan(0)
      const ownerId = doc.fulfilment.ownerId
      expect(await columnsHolding(friend.address)).toEqual(
        expect.arrayContaining([...PAYER_COLUMNS, 'heart_files.payment_reference']),
      )
      expect(await columnsHolding(human.address)).toEqual(
        expect.arrayContaining([
          ...PAYER_COLUMNS,
          'owners.wallet',
          'credit_events.wallet',
          'credit_events.order_id',
          'credit_balances.wallet',
          'chat_sessions.wallet',
        ]),
      )
      const accounting = () =>
        sql(`SELECT (SELECT sum(amount_atomic)::text FROM revenue) AS revenue,
                    (SELECT count(*)::int FROM orders) AS orders,
                    (SELECT sum(amount)::text FROM payment_ledger) AS ledger`)
      const before = await accounting()

      expect(
        (await call('DELETE', `/api/owners/${ownerId}`, undefined, { cookie: chat.cookie })).json,
      ).toMatchObject({ erased: true, ownerId, personas: 1 })
      expect(await columnsHolding(friend.address)).toEqual([])
      expect(await columnsHolding(human.address)).toEqual([])
      expect(
        await sql(
          `SELECT (SELECT count(*)::int FROM owners WHERE id = $1) AS owners,
                  (SELECT count(*)::int FROM personas WHERE handle = $2) AS personas,
                  (SELECT count(*)::int FROM heart_files WHERE owner_id = $1) AS docs`,
          [ownerId, handle],
        ),
      ).toEqual([{ owners: 0, personas: 0, docs: 0 }])
      // Amounts stay: each order under its payment's keyed hash, its revenue with it.
      expect(await accounting()).toEqual(before)
      const ledger = t.venue.deps.payments.ledger
      for (const [kind, payment] of [
        ['doc_submit', doc.entry],
        ['chat_topup', topup.entry],
      ] as const)
        expect(
          await sql(
            `SELECT o.owner_id, r.kind FROM orders o JOIN revenue r ON r.order_id = o.id WHERE o.id = $1`,
            [`${kind}:${ledger.anonymizedReference(payment.reference)}`],
          ),
        ).toEqual([{ owner_id: null, kind }])
      // Both payments, presented again, are still used.
      await expectUsed(doc.entry)
      await expectUsed(topup.entry)
    }, 60_000)
  },
)
