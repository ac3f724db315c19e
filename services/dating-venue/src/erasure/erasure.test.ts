import { randomBytes, randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { LedgerEntry, PaidItem, PaymentReceipt } from '@agents/payments'
import { testBackends } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, getAddress } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { VenueDeps } from '../deps.ts'
import { createLocalIdp, type LocalIdp } from '../identity/testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from '../identity/testing/local-issuer.ts'
import { heartFileItem } from '../intake/heart-file-item.ts'
import { chatDocItem } from '../intake/submit-doc-item.ts'
import { storeExchange } from '../matchmaker/messages.ts'
import { topupItem } from '../orders/topup-item.ts'
import type { Venue } from '../start.ts'
import { createAgent, createOwner } from '../test-helpers.ts'
import { signInToChat } from '../testing/chat-fixtures.ts'
import { signInToConsole } from '../testing/siwe-sign-in.ts'
import {
  startTestVenue,
  TEST_ADMIN_TOKEN,
  TEST_DATABASE_URL,
  VENUE_TEST_DATABASE,
} from '../testing.ts'
import { columnsHolding as columnsHoldingIn, PAYER_COLUMNS } from './testing/columns-holding.ts'

// Markers are vowel-only or plain words: the safety check holds digit runs and profanity.
const HEART_A = {
  about: 'I carve driftwood lanterns and hum aeiouaeio shanties at dusk.',
  seeking: 'Someone who laughs at oiaueoia puns and loves tide pools.',
}
const HEART_B = {
  about: 'I bake sourdough and sail small boats on quiet lakes.',
  seeking: 'Someone curious who likes slow Sunday mornings.',
}
const CONTACT_A = 'signal: eaoiu-private-pointer'
const CONTACT_B = 'telegram: uoiea-private-pointer'
const DRAFT_A = 'I collect ueoai sea glass along the northern shore.'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
const PAYEE = '0x00000000000000000000000000000000000fee00'
const operatorAccount = privateKeyToAccount(generatePrivateKey())

describe.each(testBackends(TEST_DATABASE_URL, VENUE_TEST_DATABASE))(
  'erasure on $name',
  ({ name, open }) => {
    let venue: Venue
    let issuer: LocalIssuer
    let idp: LocalIdp
    let mcp: Client
    let drop: () => Promise<void>

    beforeAll(async () => {
      const database = await open()
      drop = database.drop
      issuer = await createLocalIssuer()
      idp = await createLocalIdp()
      venue = await startTestVenue({
        databaseUrl: database.url,
        env: {
          VENUE_LOGIN_ISSUERS: JSON.stringify([issuer.trustedIssuer()]),
          VENUE_LOGIN_URL: issuer.loginUrl,
          IDP_BASE_URL: idp.url,
          IDP_API_KEY: idp.apiKey,
          IDP_WORKFLOW_ID: 'wf-18-plus',
          IDP_WEBHOOK_SECRET: idp.webhookSecret,
          VENUE_OPERATOR_WALLETS: operatorAccount.address,
        },
      })
      mcp = new Client({ name: 'erasure-scan', version: '1.0.0' })
      await mcp.connect(new StreamableHTTPClientTransport(new URL(`${venue.url}/mcp`)))
    }, 60_000)
    afterAll(async () => {
      await mcp?.close()
      await venue?.close()
      await issuer?.close()
      await idp?.close()
      await drop?.()
    })

    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const response = await fetch(`${venue.url}${path}`, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      // biome-ignore lint/suspicious/noExplicitAny: tests read JSON by path
      let json: any
      try {
        json = JSON.parse(text)
      } catch {}
      return { status: response.status, json, text }
    }
    const sql = async <row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
      (await venue.deps.database.client.query(text, params)).rows as row[]

    /**
     * A payment as a sale leaves it once the facilitator has settled it: claimed in the ledger
     * (with the item's hold), then delivered with the item's own fulfilment (its order, revenue
     * and goods), under the reference the x402 rail builds from the payer's EIP-3009
     * authorization. This tier has no chain (the chain tier pays through HTTP:
     * erasure-payments.chain.test.ts).
     */
    const payThroughLedger = async <order, fulfilment>(
      item: PaidItem<VenueDeps, order, fulfilment>,
      order: order,
      payer: Address,
      requestKey: string,
    ) => {
      const nonce = `0x${randomBytes(32).toString('hex')}` as const
      const reference = `x402:eip155:8453:${USDC}:${payer.toLowerCase()}:${nonce}`
      const amount = item.price!.amount
      const entry: LedgerEntry = {
        reference,
        kind: item.kind,
        requestKey,
        rail: 'x402',
        network: 'eip155:8453',
        amount,
        payTo: PAYEE,
        payer: getAddress(payer),
        proof: {
          rail: 'x402',
          network: 'eip155:8453',
          asset: getAddress(USDC),
          from: getAddress(payer),
          nonce,
          validBefore: String(Math.floor(Date.now() / 1000) + 600),
          version: 1,
        },
        order,
      }
      const product = item.product(venue.deps)
      const ledger = venue.deps.payments.ledger
      const claimed = await ledger.claim(entry, {
        leaseSeconds: 60,
        state: 'settling',
        hold: product.hold && ((tx) => product.hold!(tx, order, reference)),
      })
      expect(claimed.kind).toBe('new')
      // As facilitators report them: the payer checksummed.
      const receipt: PaymentReceipt = {
        rail: 'x402',
        version: 1,
        network: 'eip155:8453',
        payer: getAddress(payer),
        amount: amount.toString(),
        transaction: `0x${randomBytes(32).toString('hex')}`,
        reference,
      }
      const { fulfilment } = await ledger.deliver(
        reference,
        (tx) => product.fulfil(tx, order, receipt),
        { settled: receipt },
      )
      return { entry, fulfilment }
    }

    /** An owner keyed by the wallet that paid for its doc (the test holds its key: it signs in to the chat). */
    const member = async (
      contact: string,
      heart: object,
      account: PrivateKeyAccount,
      callbackUrl?: string,
    ) => {
      const { fulfilment, entry: payment } = await payThroughLedger(
        heartFileItem,
        {
          homeMarket: 'other',
          activeMarket: 'remote',
          researchOptin: 'none',
          ageAttested: true,
          contactRefSealed: venue.deps.sealer.seal(contact),
          heart: heart as never,
        },
        account.address,
        `heart-file:${randomUUID()}`,
      )
      const ownerId = fulfilment.ownerId
      const credential = venue.deps.sealer.open(fulfilment.ownerCredentialSealed!)
      const agent = await createAgent(venue, { ownerCredential: credential, ownerId }, callbackUrl)
      const handle = `erasee-${randomUUID().slice(0, 8)}`
      const persona = await call(
        'POST',
        '/api/personas',
        { handle, model: 'm', persona_age: '18+', heart, ownerId },
        bearer(agent.credential),
      )
      expect(persona.status, persona.text).toBe(200)
      return {
        ownerId,
        credential,
        agent,
        account,
        wallet: account.address.toLowerCase(),
        handle,
        personaId: persona.json.personaId as number,
        payment,
      }
    }
    type Member = Awaited<ReturnType<typeof member>>

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

    const columnsHolding = (address: string) => columnsHoldingIn(venue, address)

    /**
     * A payment an erasure anonymized, presented to the ledger again (as a sale claims it):
     * found under its keyed hash, with nothing of the payer, and nothing written.
     */
    const expectUsed = async (payment: LedgerEntry) => {
      const ledger = venue.deps.payments.ledger
      const [rows] = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM payment_ledger`)
      const again = await ledger.claim(payment, { leaseSeconds: 60, state: 'settling' })
      expect(again).toMatchObject({
        kind: 'existing',
        row: {
          reference: expect.stringMatching(/^erased:[0-9a-f]{64}$/),
          payer: '',
          requestKey: '',
          state: 'settled',
        },
      })
      if (again.kind === 'existing')
        expect(again.row.reference).toBe(ledger.anonymizedReference(payment.reference))
      expect(
        (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM payment_ledger`))[0],
      ).toEqual(rows)
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
        const result = await mcp.callTool({ name: tool, arguments: {} })
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
        const login = await issuer.sign({ sub: subject })
        const claim = await call('POST', '/api/escalations/claim', { token, authToken: login })
        expect(claim.status, claim.text).toBe(200)
        const sessionId = claim.json.diditUrl.split('/verify/')[1]
        const decision = m === a ? { dateOfBirth: '1990-04-02' } : { age: 31 }
        expect((await idp.decide(sessionId, { status: 'Approved', ...decision })).status).toBe(200)
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
      const chat = await signInToChat(venue.url, { account: a.account })
      expect(chat.wallet).toBe(a.wallet)
      const draft = await call(
        'POST',
        '/api/chat/draft',
        { answer: DRAFT_A },
        { cookie: chat.cookie, origin: venue.url },
      )
      expect(draft.status, draft.text).toBe(200)
      await storeExchange(
        venue.deps,
        a.wallet,
        'What should I write about?',
        'Tell me about the lanterns.',
      )
      await storeExchange(
        venue.deps,
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
          payment_reference: venue.deps.payments.ledger.anonymizedReference(reportReference),
        },
      ])
      // Its doc's order is named by its payment's keyed hash, and its revenue follows it.
      const docOrder = `doc_submit:${venue.deps.payments.ledger.anonymizedReference(a.payment.reference)}`
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

    it('a partner with a callback is told by a signed message, as for a withdrawal', async () => {
      // Only the two new personas are free for the beat.
      await sql(`UPDATE personas SET status = 'withdrawn' WHERE status = 'admitted'`)
      const received: Array<{ body: string; signature: string | undefined }> = []
      const hook = createServer((request, response) => {
        let body = ''
        request.on('data', (chunk) => (body += chunk))
        request.on('end', () => {
          const parsed = JSON.parse(body) as { challenge?: string }
          if (!parsed.challenge)
            received.push({ body, signature: request.headers['venue-signature'] as string })
          response.setHeader('content-type', 'application/json')
          response.end(JSON.stringify(parsed.challenge ? { echo: parsed.challenge } : { ok: true }))
        })
      })
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve))
      try {
        const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`
        const e = await member(
          'signal: iouae-leaving',
          HEART_A,
          privateKeyToAccount(generatePrivateKey()),
        )
        const f = await member(
          'signal: aeoiu-staying',
          HEART_B,
          privateKeyToAccount(generatePrivateKey()),
          hookUrl,
        )
        const beat = await call(
          'POST',
          '/admin/actions/beat',
          { cycleId: `erase-callback-${name}` },
          bearer(TEST_ADMIN_TOKEN),
        )
        expect(beat.json.created).toBe(1)
        const coupleId = beat.json.coupleIds[0] as number
        expect(
          (await call('DELETE', `/api/owners/${e.ownerId}`, undefined, bearer(e.credential))).json,
        ).toMatchObject({ erased: true, couplesEnded: 1 })
        const told = received
          .map((r) => ({ ...r, json: JSON.parse(r.body) }))
          .find((r) => r.json.type === 'withdrawn')
        expect(told?.json).toEqual({
          type: 'withdrawn',
          coupleId,
          personaId: f.personaId,
          reason: 'the other side withdrew',
        })
        expect(told?.signature).toBeTruthy()
        expect(told?.body).not.toContain(e.handle)
        // Told by callback: no board line for it.
        expect((await call('GET', '/api/boards/notifications')).text).not.toContain(
          `@${f.handle}: couple`,
        )
      } finally {
        hook.close()
      }
    }, 60_000)

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
      const chat = await signInToChat(venue.url, { account: human })
      const handle = `chatter-${randomUUID().slice(0, 8)}`
      // Its doc, paid by a friend's wallet (the owner is the signed-in one), and a top-up it paid.
      const doc = await payThroughLedger(
        chatDocItem,
        {
          wallet: chat.wallet,
          handle,
          heart: HEART_B as never,
          contactRefSealed: venue.deps.sealer.seal(CONTACT_B),
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
      const ledger = venue.deps.payments.ledger
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

    it('who may erase: the operator, a credential acting for the owner, its signed-in human; others are refused', async () => {
      const erase = (ownerId: number | string, headers: Record<string, string> = {}) =>
        call('DELETE', `/api/owners/${ownerId}`, undefined, headers)
      const c = await createOwner(venue)
      const d = await createOwner(venue)
      const agentOfD = await createAgent(venue, {
        ownerCredential: d.credential,
        ownerId: d.ownerId,
      })

      expect((await erase('x', bearer(TEST_ADMIN_TOKEN))).json.error).toBe('bad owner id')
      expect((await erase(2 ** 31, bearer(TEST_ADMIN_TOKEN))).status).toBe(400)
      const none = await erase(c.ownerId)
      expect(none.status).toBe(401)
      expect(none.json.error).toBe('credential required: acting for this owner')
      expect((await erase(c.ownerId, bearer(d.credential))).json).toEqual({
        error: 'credential does not act for this owner',
      })
      expect((await erase(c.ownerId, bearer(agentOfD.credential))).status).toBe(403)
      expect((await erase(c.ownerId, bearer(`vo_${c.ownerId}_${'A'.repeat(43)}`))).json.error).toBe(
        'credential not recognised',
      )
      const garbage = await erase(c.ownerId, bearer('not-a-token-at-all'))
      expect(garbage.status).toBe(401)
      expect(garbage.json.error).toBe('auth verification failed')
      // A signed-in human who did not claim this owner.
      expect(
        (await erase(c.ownerId, bearer(await issuer.sign({ sub: 'someone-else' })))).json,
      ).toEqual({
        error: 'login does not act for this owner',
      })
      expect((await erase(999_999, bearer(TEST_ADMIN_TOKEN))).json).toEqual({
        error: 'no such owner',
      })
      expect(
        (await erase(999_999, bearer(await issuer.sign({ sub: 'someone-else' })))).status,
      ).toBe(404)
      expect(
        (
          await sql(`SELECT count(*)::int AS n FROM owners WHERE id = ANY($1)`, [
            [c.ownerId, d.ownerId],
          ])
        )[0],
      ).toEqual({ n: 2 })

      // The operator erases C (token) and G (the console's session cookie); D's own agent erases D.
      expect((await erase(c.ownerId, bearer(TEST_ADMIN_TOKEN))).json).toMatchObject({
        erased: true,
        personas: 0,
      })
      const g = await createOwner(venue)
      const signedIn = await signInToConsole(venue.url, operatorAccount)
      expect(signedIn.status).toBe(200)
      const { cookie } = signedIn
      expect((await erase(g.ownerId, { cookie: 'venue_operator=not-a-session' })).status).toBe(401)
      expect(
        (await erase(g.ownerId, { cookie, origin: 'https://elsewhere.example' })).json,
      ).toEqual({
        error: 'cross-site request refused',
      })
      expect((await erase(g.ownerId, { cookie })).json).toMatchObject({ erased: true })
      expect((await erase(d.ownerId, bearer(agentOfD.credential))).json).toMatchObject({
        erased: true,
      })
      expect(
        await sql(`SELECT id FROM owners WHERE id = ANY($1)`, [[c.ownerId, d.ownerId, g.ownerId]]),
      ).toEqual([])
      expect(
        await sql(`SELECT id FROM agent_endpoints WHERE id = $1`, [agentOfD.endpointId]),
      ).toEqual([])
      // The erasures are recorded without the owners' ids.
      expect(
        await sql(`SELECT detail FROM events WHERE kind = 'owner_erased' ORDER BY id DESC LIMIT 3`),
      ).toEqual([
        { detail: { by: 'agent' } },
        { detail: { by: 'operator', operator: operatorAccount.address.toLowerCase() } },
        { detail: { by: 'operator', operator: 'token' } },
      ])
      // The human of the chat page: the signed-in wallet erases the owner it keys, no other.
      const human = await signInToChat(venue.url)
      const stranger = await signInToChat(venue.url)
      // Stored checksummed, as a doc paid from that wallet stores it: the session's is lower-case.
      const [inserted] = await sql<{ id: number }>(
        `INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'x') RETURNING id`,
        [getAddress(human.wallet)],
      )
      const ownWallet = inserted!.id
      expect((await erase(ownWallet, { cookie: stranger.cookie })).json).toEqual({
        error: 'the signed-in wallet owns no profile here: submit a doc first',
      })
      await sql(`INSERT INTO owners (wallet, credential_hash) VALUES ($1, 'x') RETURNING id`, [
        stranger.wallet,
      ])
      expect((await erase(ownWallet, { cookie: stranger.cookie })).json).toEqual({
        error: 'credential does not act for this owner',
      })
      expect(
        (await erase(ownWallet, { cookie: human.cookie, origin: 'https://elsewhere.example' }))
          .status,
      ).toBe(403)
      expect((await erase(ownWallet, { cookie: human.cookie })).json).toMatchObject({
        erased: true,
      })
      expect(await sql(`SELECT id FROM owners WHERE id = $1`, [ownWallet])).toEqual([])
      // Agents read the route and what it removes in the skill and the full text.
      for (const path of ['/skill', '/llms-full.txt']) {
        const text = (await call('GET', path)).text
        for (const words of ['DELETE /api/owners/:ownerId', 'match vectors', 'anonymous amounts'])
          expect(text, path).toContain(words)
      }
    }, 60_000)
  },
)
