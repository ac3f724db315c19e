import { randomBytes, randomUUID } from 'node:crypto'
import type { LedgerEntry, PaidItem, PaymentReceipt } from '@agents/payments'
import type { TestBackend } from '@agents/service-kit/db'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type Address, getAddress } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect } from 'vitest'
import type { VenueDeps } from '../../deps.ts'
import { createLocalIdp, type LocalIdp } from '../../identity/testing/local-idp.ts'
import { createLocalIssuer, type LocalIssuer } from '../../identity/testing/local-issuer.ts'
import { heartFileItem } from '../../intake/heart-file-item.ts'
import type { Venue } from '../../start.ts'
import { createAgent } from '../../test-helpers.ts'
import { startTestVenue } from '../../testing.ts'
import { columnsHolding as columnsHoldingIn } from './columns-holding.ts'

// Markers are vowel-only or plain words: the safety check holds digit runs and profanity.
export const HEART_A = {
  about: 'I carve driftwood lanterns and hum aeiouaeio shanties at dusk.',
  seeking: 'Someone who laughs at oiaueoia puns and loves tide pools.',
}
export const HEART_B = {
  about: 'I bake sourdough and sail small boats on quiet lakes.',
  seeking: 'Someone curious who likes slow Sunday mornings.',
}
export const CONTACT_A = 'signal: eaoiu-private-pointer'
export const CONTACT_B = 'telegram: uoiea-private-pointer'

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
export const USDC = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
const PAYEE = '0x00000000000000000000000000000000000fee00'

/**
 * A venue for the erasure tests of one database backend, started before the
 * file's tests and closed after them (with the local login issuer, identity
 * provider and an MCP client), and what those tests do with it: call its
 * routes, query its database, pay through its ledger, and make members.
 */
export const erasureVenue = (open: TestBackend['open']) => {
  const operatorAccount = privateKeyToAccount(generatePrivateKey())
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
  }, 120_000)
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
    expect((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM payment_ledger`))[0]).toEqual(
      rows,
    )
  }

  return {
    operatorAccount,
    get venue() {
      return venue
    },
    get issuer() {
      return issuer
    },
    get idp() {
      return idp
    },
    get mcp() {
      return mcp
    },
    call,
    sql,
    payThroughLedger,
    member,
    columnsHolding,
    expectUsed,
  }
}

export type ErasureVenue = ReturnType<typeof erasureVenue>
export type Member = Awaited<ReturnType<ErasureVenue['member']>>
