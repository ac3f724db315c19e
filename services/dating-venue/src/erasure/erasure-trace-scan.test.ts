import { randomBytes } from 'node:crypto'
import { testBackends } from '@agents/service-kit/db'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { storeExchange } from '../ask-matchmaker/messages.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { TEST_ADMIN_TOKEN, TEST_DATABASE_URL, VENUE_TEST_DATABASE } from '../testing.ts'
import { PAYER_COLUMNS } from './testing/columns-holding.ts'
import {
  bearer,
  CONTACT_A,
  CONTACT_B,
  erasureVenue,
  HEART_A,
  HEART_B,
  type Member,
  USDC,
} from './testing/erasure-venue.ts'

const DRAFT_A = 'I collect ueoai sea glass along the northern shore.'

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure, the whole way and every table scanned after it on $name',
  ({ name, open }) => {
    const t = erasureVenue(open)
    const { call, sql, member, columnsHolding, expectUsed } = t

    /** Everything by which a row or an answer could still point at the member. */
    const tracesOf = async (m: Member, extra: string[]) => {
      const [owner] = await sql<{ credential_hash: string; human_subject: string | null }>(
        `SELECT credential_hash, human_subject FROM owners WHERE id = $1`,
        [m.ownerId],
      )
      const [vector] = await sql<{ hex: string }>(
        `SELECT encode(vector, 'hex') AS hex FROM persona_vectors WHERE persona_id = $1`,
        [m.personaId],
      )
      expect(vector, 'the persona has a match vector to erase').toBeDefined()
      const sealed = await sql<{ value: string }>(
        `SELECT contact_ref_sealed AS value FROM heart_files WHERE owner_id = $1
       UNION ALL SELECT text_sealed FROM chat_messages WHERE speaker = $2`,
        [m.ownerId, m.wallet],
      )
      const sessions = await sql<{ session_id: string }>(
        `SELECT session_id FROM identity_sessions WHERE owner_id = $1`,
        [m.ownerId],
      )
      const invites = await sql<{ token: string }>(
        `SELECT token FROM invites WHERE owner_id = $1`,
        [m.ownerId],
      )
      return [
        m.handle,
        m.wallet,
        m.agent.account.address,
        owner!.credential_hash,
        ...(owner!.human_subject ? [owner!.human_subject] : []),
        vector!.hex.slice(0, 64),
        ...sealed.map((row) => row.value),
        ...sessions.map((row) => row.session_id),
        ...invites.map((row) => row.token),
        ...extra,
      ].map((trace) => trace.toLowerCase())
    }

    /** Patterns naming the member's ids: in ids columns, in order ids, report keys and JSON. */
    const idPatterns = (m: Member) => [
      new RegExp(`cr:${m.ownerId}:`),
      new RegExp(`owner[:-]${m.ownerId}\\b`),
      new RegExp(`owner ${m.ownerId}\\b`),
      new RegExp(`agent:${m.agent.endpointId}\\b`),
      new RegExp(`"ownerid": ?${m.ownerId}\\b`),
      new RegExp(`"to": ?${m.ownerId}\\b`),
      new RegExp(`"personaid": ?${m.personaId}\\b`),
      new RegExp(`"endpointid": ?${m.agent.endpointId}\\b`),
      new RegExp(`"personas": ?\\[[^\\]]*\\b${m.personaId}\\b`),
      new RegExp(`\\{"id": ?${m.ownerId}, ?"tier"`),
    ]

    /**
     * Every row of every table of the database, as text, searched for the
     * traces; and every column holding an owner, persona or endpoint id
     * compared with the member's. Answers where each trace was found.
     */
    const scanTables = async (m: Member, traces: string[]) => {
      const found: string[] = []
      const tables = await sql<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
      )
      expect(tables.length).toBeGreaterThan(25)
      const idColumns: Record<string, number> = {
        owner_id: m.ownerId,
        persona_id: m.personaId,
        persona_a: m.personaId,
        persona_b: m.personaId,
      }
      const ownId: Record<string, number> = {
        owners: m.ownerId,
        personas: m.personaId,
        agent_endpoints: m.agent.endpointId,
      }
      const patterns = idPatterns(m)
      for (const { table_name: table } of tables) {
        const rows = await sql<{ row: string }>(`SELECT t::text AS row FROM "${table}" t`)
        for (const { row } of rows) {
          const text = row.toLowerCase()
          for (const trace of traces) if (text.includes(trace)) found.push(`${table}: ${trace}`)
          for (const pattern of patterns)
            if (pattern.test(text)) found.push(`${table}: ${pattern.source}`)
        }
        const columns = await sql<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
          [table],
        )
        for (const { column_name: column } of columns) {
          const id = column === 'id' ? ownId[table] : idColumns[column]
          if (id === undefined) continue
          const [hit] = await sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM "${table}" WHERE "${column}"::text = $1`,
            [String(id)],
          )
          if (hit!.n > 0) found.push(`${table}.${column} = ${id}`)
        }
      }
      return found
    }

    /** Every public answer that could show a member: boards, the floor, couples, the MCP tools. */
    const scanRoutes = async (
      m: Member,
      traces: string[],
      {
        coupleId,
        partner,
        partnerLogin,
      }: { coupleId: number; partner: Member; partnerLogin: string },
    ) => {
      const answers: Array<[string, string]> = []
      for (const path of [
        '/',
        '/api/boards/seeking',
        '/api/boards/debriefs',
        '/api/boards/courtships',
        '/api/boards/notifications',
        '/api/floor',
        `/api/escalations/${coupleId}/status`,
        '/.well-known/jwks.json',
      ])
        answers.push([path, (await call('GET', path)).text])
      answers.push([
        'GET /api/couples/:id (the partner)',
        (
          await call(
            'GET',
            `/api/couples/${coupleId}?personaId=${partner.personaId}`,
            undefined,
            bearer(partner.agent.credential),
          )
        ).text,
      ])
      answers.push([
        'GET /api/couples/:id/reveal (the partner)',
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(partnerLogin)))
          .text,
      ])
      for (const tool of ['get_stats', 'get_courtships']) {
        const result = await t.mcp.callTool({ name: tool, arguments: {} })
        answers.push([`mcp ${tool}`, JSON.stringify(result.content)])
      }
      const found: string[] = []
      const patterns = [...idPatterns(m), new RegExp(`"personaid":${m.personaId}\\b`)]
      for (const [where, body] of answers) {
        const text = body.toLowerCase()
        // The partner's reveal carries the member's contactRef before the erasure, by design.
        for (const trace of [...traces, `@${m.handle}`.toLowerCase()])
          if (text.includes(trace)) found.push(`${where}: ${trace}`)
        for (const pattern of patterns)
          if (pattern.test(text)) found.push(`${where}: ${pattern.source}`)
      }
      return found
    }

    it('erases an owner who went the whole way, leaving no trace in any table or public answer', async () => {
      const a = await member(CONTACT_A, HEART_A, privateKeyToAccount(generatePrivateKey()))
      const b = await member(CONTACT_B, HEART_B, privateKeyToAccount(generatePrivateKey()))
      const beat = await call(
        'POST',
        '/admin/actions/beat',
        { cycleId: `erase-${name}` },
        bearer(TEST_ADMIN_TOKEN),
      )
      expect(beat.json.created).toBe(1)
      const coupleId = beat.json.coupleIds[0] as number

      // Courtship turns, a board post and a report from each side.
      const turn = (m: Member, body: string) =>
        call(
          'POST',
          `/api/couples/${coupleId}/turns`,
          { personaId: m.personaId, body },
          bearer(m.agent.credential),
        )
      expect((await turn(a, 'Hello there, I loved your note about aeiou lanterns.')).status).toBe(
        201,
      )
      expect((await turn(b, 'Hello back, tell me about the lake and the boats.')).status).toBe(201)
      expect((await turn(a, 'The lanterns glow oiuea blue when the tide is low.')).status).toBe(201)
      const post = await call(
        'POST',
        '/api/boards/seeking',
        { personaId: a.personaId, body: 'Seeking a fellow driftwood carver, aeiou.' },
        bearer(a.agent.credential),
      )
      expect(post.status).toBe(201)
      expect(
        (
          await call(
            'POST',
            '/api/report',
            { targetType: 'persona', targetId: b.personaId },
            bearer(a.credential),
          )
        ).status,
      ).toBe(200)

      // Consents, invites, claims by both humans, identity checks, reveal consents and the reveal.
      for (const m of [a, b])
        expect(
          (
            await call(
              'POST',
              `/api/couples/${coupleId}/intro-consent`,
              { ownerId: m.ownerId },
              bearer(m.credential),
            )
          ).status,
        ).toBe(200)
      const logins: string[] = []
      for (const [m, subject] of [
        [a, `human-a-${name}`],
        [b, `human-b-${name}`],
      ] as const) {
        const invite = await call(
          'POST',
          `/api/escalations/${coupleId}/invite`,
          undefined,
          bearer(m.credential),
        )
        const token = invite.json.invites.find(
          (i: { ownerId: number }) => i.ownerId === m.ownerId,
        ).token
        const login = await t.issuer.sign({ sub: subject })
        const claim = await call('POST', '/api/escalations/claim', { token, authToken: login })
        expect(claim.status, claim.text).toBe(200)
        const sessionId = claim.json.diditUrl.split('/verify/')[1]
        const decision = m === a ? { dateOfBirth: '1990-04-02' } : { age: 31 }
        expect((await t.idp.decide(sessionId, { status: 'Approved', ...decision })).status).toBe(
          200,
        )
        logins.push(login)
      }
      const [loginA, loginB] = logins as [string, string]
      for (const login of logins)
        expect(
          (await call('POST', `/api/couples/${coupleId}/reveal-consent`, undefined, bearer(login)))
            .status,
        ).toBe(200)
      expect(
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginA))).json
          .contactRef,
      ).toBe(CONTACT_B)
      // A fresh invite for A, minted after the claim: a live one to erase as well.
      await call('POST', `/api/escalations/${coupleId}/invite`, undefined, bearer(a.credential))

      // Identity results are statuses only: the date of birth the provider sent is nowhere.
      const identityRows = await sql<{ row: string }>(
        `SELECT t::text AS row FROM identity_sessions t UNION ALL SELECT o::text FROM owners o`,
      )
      expect(identityRows.length).toBeGreaterThan(2)
      for (const { row } of identityRows) {
        expect(row).not.toContain('1990-04-02')
        expect(row).not.toMatch(/date_of_birth|dateofbirth/i)
      }
      const statuses = await sql<{ status: string }>(
        `SELECT DISTINCT status FROM identity_sessions`,
      )
      for (const { status } of statuses) expect(status).toMatch(/^[A-Za-z ]+$/)

      // The human chat: signed in with A's wallet, an interview answer (draft), stored exchanges, credits.
      const chat = await signInToChat(t.venue.url, { account: a.account })
      expect(chat.wallet).toBe(a.wallet)
      const draft = await call(
        'POST',
        '/api/chat/draft',
        { answer: DRAFT_A },
        { cookie: chat.cookie, origin: t.venue.url },
      )
      expect(draft.status, draft.text).toBe(200)
      await storeExchange(
        t.venue.deps,
        a.wallet,
        'What should I write about?',
        'Tell me about the lanterns.',
      )
      await storeExchange(
        t.venue.deps,
        `agent:${a.agent.endpointId}`,
        'A question from the agent.',
        'An answer.',
      )
      // A paid report for A (its order id names the owner) and the credits of a refund for it.
      const reportOrder = `cr:${a.ownerId}:${coupleId}:2026-11-25`
      const reportReference = `x402:eip155:8453:${USDC}:${a.wallet}:0x${randomBytes(32).toString('hex')}`
      await sql(
        `INSERT INTO payment_ledger (reference, kind, request_key, state, rail, network, amount, pay_to, payer, proof, "order", settled_at, fulfilled_at)
       VALUES ($4, 'compatibility_report', $1, 'settled', 'x402', 'base', 500000, '0xpayee', $2, '{}', $3, now(), now())`,
        [
          `report:${reportOrder}`,
          a.wallet,
          JSON.stringify({ orderId: reportOrder, ownerId: a.ownerId }),
          reportReference,
        ],
      )
      await sql(
        `INSERT INTO orders (id, kind, owner_id, status, amount_atomic, payment_reference) VALUES ($1, 'compatibility_report', $2, 'fulfilled', 500000, $3)`,
        [reportOrder, a.ownerId, reportReference],
      )
      await sql(
        `INSERT INTO revenue (order_id, kind, rail, amount_atomic, reserve_atomic) VALUES ($1, 'compatibility_report', 'x402', 500000, 50000)`,
        [reportOrder],
      )
      await sql(
        `INSERT INTO credit_events (wallet, credits, reason, order_id) VALUES ($1, 13, 'refund', $2)`,
        [a.wallet, reportOrder],
      )
      await sql(`INSERT INTO credit_balances (wallet, credits) VALUES ($1, 13)`, [a.wallet])
      await sql(`INSERT INTO events (kind, detail) VALUES ('order_credited', $1)`, [
        JSON.stringify({ orderId: reportOrder, wallet: a.wallet }),
      ])

      const traces = await tracesOf(a, [
        HEART_A.about,
        HEART_A.seeking,
        CONTACT_A,
        DRAFT_A,
        'aeiouaeio shanties',
      ])
      const routes = { coupleId, partner: b, partnerLogin: loginB }
      const accounting = () =>
        sql(`SELECT (SELECT sum(amount_atomic)::text FROM revenue) AS revenue,
                  (SELECT sum(reserve_atomic)::text FROM revenue) AS reserve,
                  (SELECT count(*)::int FROM orders) AS orders,
                  (SELECT sum(amount_atomic)::text FROM orders) AS ordered,
                  (SELECT sum(amount)::text FROM payment_ledger) AS ledger`)
      const totalsBefore = await accounting()
      const [seatsBefore] = await sql<{ used: number }>(`SELECT used FROM capacity WHERE id = 1`)

      // The scan can fail: before the erasure it finds A in the tables and in the public answers,
      // and the wallet that paid for its doc and its report in every column that keeps a payment.
      expect(await columnsHolding(a.account.address)).toEqual(
        expect.arrayContaining([
          ...PAYER_COLUMNS,
          'owners.wallet',
          'heart_files.payment_reference',
        ]),
      )
      const before = await scanTables(a, traces)
      for (const where of [
        'owners.id',
        'heart_files.owner_id',
        'personas.id',
        'persona_vectors.persona_id',
        'couples.persona_a',
        'courtship_seats.persona_id',
        'intro_consents.owner_id',
        'reveal_consents.owner_id',
        'invites.owner_id',
        'identity_sessions.owner_id',
        'agent_endpoints.owner_id',
        'posts.persona_id',
        'turns.persona_id',
        'orders.owner_id',
        'chat_messages: ',
        'chat_drafts: ',
        'chat_sessions: ',
        'chat_wallets: ',
        'credit_events: ',
        'credit_balances: ',
        'payment_ledger: ',
        'revenue: cr:',
        'reports: owner',
        'events: ',
      ])
        expect(
          before.some((hit) => hit.startsWith(where) || hit.replace(/ = .*/, '').endsWith(where)),
          `${where} in ${before.join('\n')}`,
        ).toBe(true)
      const routesBefore = await scanRoutes(a, traces, routes)
      for (const where of [
        '/api/floor',
        '/api/boards/seeking',
        '/api/boards/notifications',
        'GET /api/couples/:id',
      ])
        expect(
          routesBefore.some((hit) => hit.startsWith(where)),
          `${where} in ${routesBefore.join('\n')}`,
        ).toBe(true)

      // A's signed-in human erases A.
      const erased = await call('DELETE', `/api/owners/${a.ownerId}`, undefined, bearer(loginA))
      expect(erased.status, erased.text).toBe(200)
      expect(erased.json).toMatchObject({
        erased: true,
        ownerId: a.ownerId,
        personas: 1,
        couplesEnded: 1,
      })

      expect(await scanTables(a, traces)).toEqual([])
      expect(await scanRoutes(a, traces, routes)).toEqual([])
      expect(await columnsHolding(a.account.address)).toEqual([])
      // Its doc's payment, presented again, is still on record as used (the keyed hash).
      await expectUsed(a.payment)

      // Revenue stays as anonymous amounts; the seat A held is free.
      expect(await accounting()).toEqual(totalsBefore)
      expect(
        await sql(
          `SELECT id, owner_id, payment_reference FROM orders WHERE kind = 'compatibility_report'`,
        ),
      ).toEqual([
        {
          id: expect.stringMatching(/^cr:erased:[0-9a-f-]{36}$/),
          owner_id: null,
          payment_reference: t.venue.deps.payments.ledger.anonymizedReference(reportReference),
        },
      ])
      // Its doc's order is named by its payment's keyed hash, and its revenue follows it.
      const docOrder = `doc_submit:${t.venue.deps.payments.ledger.anonymizedReference(a.payment.reference)}`
      expect(
        await sql(
          `SELECT o.owner_id, o.transaction, o.payment_reference, r.amount_atomic::text AS amount
             FROM orders o JOIN revenue r ON r.order_id = o.id WHERE o.id = $1`,
          [docOrder],
        ),
      ).toEqual([
        {
          owner_id: null,
          transaction: null,
          payment_reference: docOrder.slice('doc_submit:'.length),
          amount: '1000000',
        },
      ])
      expect((await sql<{ used: number }>(`SELECT used FROM capacity WHERE id = 1`))[0]!.used).toBe(
        seatsBefore!.used - 1,
      )

      // The other side is told as for a withdrawal and keeps everything of its own.
      const notices = await call('GET', '/api/boards/notifications')
      expect(notices.text).toContain(
        `@${b.handle}: couple ${coupleId} ended: the other side withdrew`,
      )
      expect(await sql(`SELECT status FROM personas WHERE id = $1`, [b.personaId])).toEqual([
        { status: 'admitted' },
      ])
      expect(await sql(`SELECT tier FROM owners WHERE id = $1`, [b.ownerId])).toEqual([
        { tier: 'identity_verified' },
      ])
      expect(
        (await call('GET', `/api/couples/${coupleId}/reveal`, undefined, bearer(loginB))).status,
      ).toBe(404)
      // Erased is erased: a second erasure finds nothing.
      expect(
        (await call('DELETE', `/api/owners/${a.ownerId}`, undefined, bearer(TEST_ADMIN_TOKEN)))
          .status,
      ).toBe(404)
    }, 180_000)
  },
)
