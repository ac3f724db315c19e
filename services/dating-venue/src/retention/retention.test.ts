import { testBackends } from '@agents/service-kit/db'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openVenueDatabase, type VenueDatabase } from '../db/open.ts'
import { startTestVenue, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { type RetentionPeriods, sweepRetention } from './retention.ts'

// The sweep's clock is injected: every row is written at a time relative to NOW.
const NOW = new Date('2030-06-01T12:00:00Z')
const PERIODS: RetentionPeriods = {
  operationalDays: 30,
  identityDays: 30,
  expiredHours: 24,
  chatHours: 24,
}
const ago = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000).toISOString()
const DAY = 24

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'retention sweep on $name',
  ({ open }) => {
    let database: VenueDatabase
    let url: string | undefined
    let drop: () => Promise<void>
    const sql = async <row>(text: string, params: unknown[] = []) =>
      (await database.client.query(text, params)).rows as row[]
    const count = async (text: string, params: unknown[] = []) =>
      Number((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${text}`, params))[0]!.n)
    const totals = () =>
      sql(`SELECT
      (SELECT coalesce(sum(amount), 0)::text FROM payment_ledger) AS ledger,
      (SELECT count(*)::int FROM payment_ledger) AS ledger_rows,
      (SELECT coalesce(sum(amount_atomic), 0)::text FROM revenue) AS revenue,
      (SELECT coalesce(sum(reserve_atomic), 0)::text FROM revenue) AS reserve,
      (SELECT coalesce(sum(amount_atomic), 0)::text FROM orders) AS orders,
      (SELECT string_agg(id, ',' ORDER BY id) FROM orders) AS order_ids`)

    beforeAll(async () => {
      const opened = await open()
      url = opened.url
      drop = opened.drop
      database = await openVenueDatabase({ url })
    })
    afterAll(async () => {
      await database?.close()
      await drop?.()
    })

    /** One row of every kind the sweep looks at, old (past its period) and recent (inside it). */
    const seed = async () => {
      const [owner] = await sql<{ id: number }>(
        `INSERT INTO owners (wallet, credential_hash) VALUES ('0xaaaa', 'h') RETURNING id`,
      )
      const [a, b] = await sql<{ id: number }>(
        `INSERT INTO personas (handle, model, heart, status) VALUES ('ret-a', 'm', '{}', 'admitted'), ('ret-b', 'm', '{}', 'admitted') RETURNING id`,
      )
      const [couple] = await sql<{ id: number }>(
        `INSERT INTO couples (cycle_id, persona_a, persona_b) VALUES ('c', $1, $2) RETURNING id`,
        [a!.id, b!.id],
      )
      const coupleId = couple!.id
      for (const [status, hours, marker] of [
        ['published', 40 * DAY, 'old-published'],
        ['held', 40 * DAY, 'old-held'],
        ['blocked', 40 * DAY, 'old-blocked'],
        ['held', 2 * DAY, 'recent-held'],
      ] as const) {
        await sql(
          `INSERT INTO turns (couple_id, persona_id, author, body, status, created_at) VALUES ($1, $2, 'ret-a', $3, $4, $5)`,
          [coupleId, a!.id, marker, status, ago(hours)],
        )
        await sql(
          `INSERT INTO posts (board, persona_id, handle, body, status, created_at) VALUES ('seeking', $1, 'ret-a', $2, $3, $4)`,
          [a!.id, marker, status, ago(hours)],
        )
      }
      for (const [hours, key] of [
        [40 * DAY, 'old'],
        [2 * DAY, 'recent'],
      ] as const) {
        await sql(
          `INSERT INTO reports (target_type, target_id, reporter_key, created_at) VALUES ('persona', $1, $2, $3)`,
          [a!.id, key, ago(hours)],
        )
        await sql(`INSERT INTO events (kind, detail, created_at) VALUES ('beat', $1, $2)`, [
          JSON.stringify({ marker: key }),
          ago(hours),
        ])
        await sql(
          `INSERT INTO identity_sessions (session_id, owner_id, status, updated_at) VALUES ($1, $2, 'Approved', $3)`,
          [`sess-${key}`, owner!.id, ago(hours)],
        )
        await sql(
          `INSERT INTO chat_drafts (wallet, draft, skipped, updated_at) VALUES ($1, '{}', '[]', $2)`,
          [`0x${key}`, ago(hours)],
        )
        await sql(`INSERT INTO chat_usage (wallet, day, used) VALUES ($1, $2, 1)`, [
          `0x${key}`,
          ago(hours).slice(0, 10),
        ])
      }
      // Expired a day and more ago: go; expired an hour ago or live: stay.
      for (const [hours, key] of [
        [25, 'long-expired'],
        [1, 'just-expired'],
        [-1, 'live'],
      ] as const) {
        await sql(`INSERT INTO chat_nonces (nonce, expires_at) VALUES ($1, $2)`, [key, ago(hours)])
        await sql(
          `INSERT INTO operator_sessions (id_hash, operator, expires_at) VALUES ($1, '0xoperator', $2)`,
          [key, ago(hours)],
        )
        await sql(
          `INSERT INTO chat_sessions (id_hash, wallet, expires_at) VALUES ($1, '0xaaaa', $2)`,
          [key, ago(hours)],
        )
        await sql(
          `INSERT INTO invites (token, couple_id, owner_id, expires_at) VALUES (gen_random_uuid(), $1, $2, $3)`,
          [coupleId, owner!.id, ago(hours)],
        )
        await sql(
          `INSERT INTO agent_endpoints (runtime, status, nonce, nonce_expires_at) VALUES ('pending', 'pending', $1, $2), ('active', 'active', $1, $2)`,
          [`nonce-${key}`, ago(hours)],
        )
      }
      await sql(
        `INSERT INTO chat_messages (speaker, role, text_sealed, created_at) VALUES ('0xaaaa', 'human', 'sealed-old', $1), ('0xaaaa', 'human', 'sealed-recent', $2)`,
        [ago(25), ago(23)],
      )
      // Payments: a settled, delivered one past the period; one inside it; one unresolved past it.
      for (const [reference, state, fulfilled, hours] of [
        ['ref-old', 'settled', true, 40 * DAY],
        ['ref-recent', 'settled', true, 2 * DAY],
        ['ref-unresolved', 'unknown', false, 40 * DAY],
        ['ref-failed', 'failed', false, 40 * DAY],
      ] as const) {
        await sql(
          `INSERT INTO payment_ledger (reference, kind, request_key, state, rail, network, amount, pay_to, payer, proof, "order", receipt, fulfilment, updated_at, fulfilled_at)
         VALUES ($1, 'doc_submit', 'heart-file:abc', $2, 'x402', 'base', 50000, '0xpayee', '0xPayerWallet', '{"from":"0xPayerWallet"}', '{"heart":"private heart words"}', '{"tx":"0xtx"}', '{"heartFileId":1}', $3, $4)`,
          [reference, state, ago(hours), fulfilled ? ago(hours) : null],
        )
        await sql(
          `INSERT INTO orders (id, kind, owner_id, status, amount_atomic, payment_reference, transaction, updated_at)
         VALUES ($1, 'doc_submit', $2, $3, 50000, $4, '0xtx', $5)`,
          [
            `doc_submit:${reference}`,
            owner!.id,
            state === 'settled' ? 'fulfilled' : state === 'failed' ? 'failed' : 'challenged',
            state === 'settled' ? reference : null,
            ago(hours),
          ],
        )
        if (state === 'settled')
          await sql(
            `INSERT INTO revenue (order_id, kind, rail, amount_atomic, reserve_atomic, created_at) VALUES ($1, 'doc_submit', 'x402', 50000, 5000, $2)`,
            [`doc_submit:${reference}`, ago(hours)],
          )
      }
    }

    it('deletes and anonymises what is past its period, keeps the rest and the accounting totals', async () => {
      await seed()
      const before = await totals()

      // Inside every period: nothing moves.
      const early = await sweepRetention(
        database,
        PERIODS,
        new Date(NOW.getTime() - 30 * DAY * 3_600_000),
      )
      expect(early.ran).toBe(true)
      expect(Object.values(early.ran ? early.counts : {}).every((n) => n === 0)).toBe(true)

      const swept = await sweepRetention(database, PERIODS, NOW)
      expect(swept).toEqual({
        ran: true,
        counts: {
          chatMessages: 1,
          chatNonces: 1,
          chatSessions: 1,
          operatorSessions: 1,
          chatDrafts: 1,
          chatUsage: 1,
          invites: 1,
          agentRegistrations: 1,
          agentNonces: 1,
          identitySessions: 1,
          events: 1,
          reports: 1,
          heldTurns: 2,
          heldPosts: 2,
          ledgerDetails: 2,
          orderLinks: 2,
        },
      })

      // Held and blocked items past the period are gone; published ones and recent holds stay.
      const bodies = async (table: string) =>
        (await sql<{ body: string }>(`SELECT body FROM ${table} ORDER BY body`)).map((r) => r.body)
      expect(await bodies('turns')).toEqual(['old-published', 'recent-held'])
      expect(await bodies('posts')).toEqual(['old-published', 'recent-held'])
      expect(await sql(`SELECT reporter_key FROM reports`)).toEqual([{ reporter_key: 'recent' }])
      expect(await sql(`SELECT detail->>'marker' AS m FROM events`)).toEqual([{ m: 'recent' }])
      expect(await sql(`SELECT session_id FROM identity_sessions`)).toEqual([
        { session_id: 'sess-recent' },
      ])
      expect(await sql(`SELECT wallet FROM chat_drafts`)).toEqual([{ wallet: '0xrecent' }])
      expect(await sql(`SELECT wallet FROM chat_usage`)).toEqual([{ wallet: '0xrecent' }])
      expect(await sql(`SELECT text_sealed FROM chat_messages`)).toEqual([
        { text_sealed: 'sealed-recent' },
      ])
      expect(await sql(`SELECT nonce FROM chat_nonces ORDER BY nonce`)).toEqual([
        { nonce: 'just-expired' },
        { nonce: 'live' },
      ])
      expect(await count(`chat_sessions`)).toBe(2)
      expect(await count(`operator_sessions`)).toBe(2)
      expect(await count(`invites`)).toBe(2)
      expect(await sql(`SELECT status, nonce FROM agent_endpoints ORDER BY status, nonce`)).toEqual(
        [
          { status: 'active', nonce: '' },
          { status: 'active', nonce: 'nonce-just-expired' },
          { status: 'active', nonce: 'nonce-live' },
          { status: 'pending', nonce: 'nonce-just-expired' },
          { status: 'pending', nonce: 'nonce-live' },
        ],
      )

      // Payments: amounts, dates and order ids stay; who paid and what was delivered go.
      expect(await totals()).toEqual(before)
      const ledger = await sql<Record<string, unknown>>(
        `SELECT reference, payer, proof, "order", receipt, fulfilment, request_key, amount::text
       FROM payment_ledger ORDER BY reference`,
      )
      const anonymous = {
        payer: '',
        proof: {},
        order: null,
        receipt: null,
        fulfilment: null,
        request_key: '',
      }
      expect(ledger).toEqual([
        { reference: 'ref-failed', amount: '50000', ...anonymous },
        { reference: 'ref-old', amount: '50000', ...anonymous },
        expect.objectContaining({ reference: 'ref-recent', payer: '0xPayerWallet' }),
        // Unresolved: the reconciler still needs the proof and the order.
        expect.objectContaining({ reference: 'ref-unresolved', payer: '0xPayerWallet' }),
      ])
      expect(
        await sql(`SELECT id, owner_id IS NULL AS anonymous, transaction FROM orders ORDER BY id`),
      ).toEqual([
        { id: 'doc_submit:ref-failed', anonymous: true, transaction: null },
        { id: 'doc_submit:ref-old', anonymous: true, transaction: null },
        { id: 'doc_submit:ref-recent', anonymous: false, transaction: '0xtx' },
        { id: 'doc_submit:ref-unresolved', anonymous: false, transaction: '0xtx' },
      ])

      // A second sweep at the same clock finds nothing left to do.
      const again = await sweepRetention(database, PERIODS, NOW)
      expect(Object.values(again.ran ? again.counts : { x: 1 }).every((n) => n === 0)).toBe(true)
    })

    it('two sweeps at once: one runs, the other stands aside', async () => {
      await sql(`INSERT INTO events (kind, created_at) VALUES ('beat', $1), ('beat', $1)`, [
        ago(40 * DAY),
      ])
      // On PostgreSQL a second session holds the events table, so the first sweep is surely
      // still inside its lock when the second starts.
      const blocker = url ? new pg.Client({ connectionString: url }) : undefined
      if (blocker) {
        await blocker.connect()
        await blocker.query('BEGIN')
        await blocker.query('LOCK TABLE events IN ACCESS EXCLUSIVE MODE')
      }
      const first = sweepRetention(database, PERIODS, NOW)
      if (blocker) await new Promise((resolve) => setTimeout(resolve, 300))
      const second = await sweepRetention(database, PERIODS, NOW)
      await blocker?.query('COMMIT')
      await blocker?.end()
      const results = [await first, second]
      expect(results.map((result) => result.ran)).toEqual([true, false])
      expect(results[0]).toMatchObject({ counts: { events: 2 } })
      expect(await count(`events WHERE created_at < $1`, [ago(30 * DAY)])).toBe(0)
    })

    it('identity tables hold statuses only: no document field exists to hold one', async () => {
      const columns = async (table: string) =>
        (
          await sql<{ column_name: string }>(
            `SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY column_name`,
            [table],
          )
        ).map((row) => row.column_name)
      expect(await columns('identity_sessions')).toEqual([
        'created_at',
        'last_event_at',
        'owner_id',
        'session_id',
        'status',
        'updated_at',
      ])
      // The owner keeps the result as a tier and one boolean, nothing read off a document.
      const ownerColumns = await columns('owners')
      expect(ownerColumns).toEqual([
        'age_over_18',
        'created_at',
        'credential_hash',
        'human_subject',
        'id',
        'tier',
        'wallet',
      ])
      // Nothing read off an identity document has a column anywhere in the database.
      const documentish =
        /document|birth|^dob$|passport|nationality|photo|portrait|selfie|gender|first_name|last_name|full_name|legal_name|id_number|address/
      const everyColumn = await sql<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'`,
      )
      expect(everyColumn.length).toBeGreaterThan(100)
      expect(
        everyColumn
          .filter((column) => documentish.test(column.column_name))
          .map((column) => `${column.table_name}.${column.column_name}`),
      ).toEqual([])
    })

    it('the venue process sweeps on its own schedule', async () => {
      const opened = await open()
      const venue = await startTestVenue({
        databaseUrl: opened.url,
        env: { VENUE_RETENTION_SWEEP_MS: '100', VENUE_CHAT_RETENTION_HOURS: '1' },
      })
      try {
        const query = (text: string) => venue.deps.database.client.query(text)
        await query(
          `INSERT INTO chat_messages (speaker, role, text_sealed, created_at) VALUES ('0xbbbb', 'human', 'two-hours-old', now() - interval '2 hours'), ('0xbbbb', 'human', 'fresh', now())`,
        )
        const texts = async () =>
          (
            (await query(`SELECT text_sealed FROM chat_messages ORDER BY id`)).rows as Array<{
              text_sealed: string
            }>
          ).map((row) => row.text_sealed)
        for (let tries = 0; tries < 50 && (await texts()).length > 1; tries++)
          await new Promise((resolve) => setTimeout(resolve, 100))
        expect(await texts()).toEqual(['fresh'])
      } finally {
        await venue.close()
        await opened.drop()
      }
    }, 30_000)
  },
)
