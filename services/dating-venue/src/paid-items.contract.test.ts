import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type AnyPaidItem, kindsWithoutItem, paymentLedger } from '@agents/payments'
import { type PaidItemContractTarget, paidItemContract } from '@agents/payments/testing'
import { eq, gt, sql } from 'drizzle-orm'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paidAskAnswer } from './ask-matchmaker/ask.ts'
import { askItem } from './ask-matchmaker/ask-item.ts'
import { reportOrderId } from './compatibility/compatibility-report.ts'
import { reportAnswer, reportItem } from './compatibility/report-item.ts'
import { VENUE_CREDENTIAL_HEADER } from './credentials/actor-middleware.ts'
import { heartFiles, personas, posts } from './db/schema.ts'
import type { VenueDeps } from './deps.ts'
import { featuredItem } from './featured/featured-item.ts'
import { featuredAnswer } from './featured/featured-post.ts'
import { heartFileAnswer } from './intake/heart-file.ts'
import { heartFileItem } from './intake/heart-file-item.ts'
import { submitDocAnswer } from './intake/submit-doc.ts'
import { chatDocItem } from './intake/submit-doc-item.ts'
import { topupAnswer } from './orders/chat-topup.ts'
import { itemName, itemRoute } from './orders/paid-item-text.ts'
import { topupItem } from './orders/topup-item.ts'
import { USDC } from './orders/usdc.ts'
import { PAID_ITEMS } from './paid-items.ts'
import type { Venue } from './start.ts'
import { admitPersona, createAgent, createOwner, HEART, uniqueHandle } from './test-helpers.ts'
import { signInToChat } from './testing/chat-fixtures.ts'
import { type ChatStandIn, startChatStandIn } from './testing/chat-stand-in.ts'
import { startTestVenue } from './testing.ts'

// Every paid item of the venue, each against the paid-item contract on PGlite, no chain (the
// exactly-once fault matrix runs in full on compatibility_report, paid-faults.faults.test.ts;
// each item's real purchase is in its *.chain.test.ts). One featured slot a board, so that a
// second payment's hold is refused.

let venue: Venue
let chat: ChatStandIn
let skill = ''
beforeAll(async () => {
  chat = await startChatStandIn()
  chat.answer({ status: 200, content: 'Talk about what a slow Sunday looks like for each of you.' })
  venue = await startTestVenue({
    env: { VENUE_FEATURED_SLOTS: '1', MATCHMAKER_CHAT_URL: chat.url },
  })
  skill = await (await fetch(`${venue.url}/skill`)).text()
}, 60_000)
afterAll(async () => {
  await venue?.close()
  await chat?.close()
})

/** `1.00` as atomic USDC. */
const atomic = (decimal: string) => {
  const [whole, fraction = ''] = decimal.split('.')
  return BigInt(whole!) * USDC + BigInt(fraction.padEnd(6, '0').slice(0, 6))
}

/** The price /skill's table of paid items states for an item. */
const documentedPrice = (item: AnyPaidItem) => async () => {
  const row = skill
    .split('\n')
    .find((line) => line.startsWith(`| \`${itemName(item)}\` | \`${itemRoute(item)}\` |`))
  if (!row) throw new Error(`/skill lists no ${itemRoute(item)}`)
  return atomic(
    row
      .split('|')[3]!
      .trim()
      .replace(/ USDC$/, ''),
  )
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${venue.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

const freshWallet = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase()

/** An owner with a dating doc on file (filed without paying: intake's payment is this item's). */
const ownerWithDoc = async () => {
  const owner = await createOwner(venue)
  await venue.deps.database.db.insert(heartFiles).values({
    ownerId: owner.ownerId,
    homeMarket: 'other',
    activeMarket: 'remote',
    researchOptin: 'none',
    ageAttested: true,
    heart: HEART,
    paymentReference: `contract:doc:${owner.ownerId}`,
  })
  return owner
}

const contract = <order, fulfilment>(
  target: () => Omit<PaidItemContractTarget<VenueDeps, order, fulfilment>, 'items' | 'deps'>,
) =>
  paidItemContract(() => ({
    ...target(),
    items: PAID_ITEMS as unknown as readonly AnyPaidItem<VenueDeps>[],
    deps: venue.deps,
    document: async () => (await fetch(`${venue.url}/openapi.json`)).json(),
  }))

describe('doc_submit (intake)', () =>
  contract(() => ({
    item: heartFileItem,
    order: async () => ({
      ageAttested: true as const,
      homeMarket: 'other' as const,
      activeMarket: 'remote' as const,
      researchOptin: 'none' as const,
      heart: HEART as never,
      contactRefSealed: null,
    }),
    answer: heartFileAnswer(venue.deps),
    documentedPrice: documentedPrice(heartFileItem),
    challenge: () => post(heartFileItem.path, { ageAttested: true, heart: HEART }),
  })))

describe('doc_submit (chat page)', () =>
  contract(() => ({
    item: chatDocItem,
    order: async () => ({
      wallet: freshWallet(),
      handle: uniqueHandle('contract'),
      heart: HEART as never,
      contactRefSealed: null,
      homeMarket: 'other',
      activeMarket: 'remote',
    }),
    answer: submitDocAnswer,
    documentedPrice: documentedPrice(chatDocItem),
    // Its route's 402 comes after the studio token holding (a chain): see submit-doc.chain.test.ts.
  })))

describe('compatibility_report', () =>
  contract(() => ({
    item: reportItem,
    order: async () => {
      const { ownerId } = await ownerWithDoc()
      return { orderId: reportOrderId(ownerId, undefined), ownerId, coupleId: null }
    },
    answer: (fulfilment, receipt) => reportAnswer(fulfilment, receipt.reference),
    undelivered: ({ orderId }) => ({ orderId, report: null, credited: 25, cause: 'contract' }),
    documentedPrice: documentedPrice(reportItem),
    challenge: async () => {
      const owner = await ownerWithDoc()
      return post(
        reportItem.path,
        { ownerId: owner.ownerId },
        { authorization: `Bearer ${owner.credential}` },
      )
    },
  })))

/** The board's one slot freed: every featured post so far ends now. */
const freeSlots = () =>
  venue.deps.database.db
    .update(posts)
    .set({ featuredUntil: sql`now()` })
    .where(gt(posts.featuredUntil, sql`now()`))

describe('featured_slot', () =>
  contract(() => ({
    item: featuredItem,
    order: async () => {
      await freeSlots()
      const personaId = (await admitPersona(venue)).answer.json.personaId as number
      const [persona] = await venue.deps.database.db
        .select({ handle: personas.handle })
        .from(personas)
        .where(eq(personas.id, personaId))
      return {
        personaId,
        ownerId: null,
        handle: persona!.handle,
        board: 'seeking',
        body: `Featured sailor seeks a curious crew ${uniqueHandle('aoe')}`,
      }
    },
    answer: featuredAnswer,
    documentedPrice: documentedPrice(featuredItem),
    challenge: async () => {
      await freeSlots()
      const { agent, answer } = await admitPersona(venue)
      return post(
        featuredItem.path,
        { personaId: answer.json.personaId, board: 'seeking', body: 'A slow Sunday, featured.' },
        { [VENUE_CREDENTIAL_HEADER]: agent.credential },
      )
    },
  })))

describe('agent_ask', () =>
  contract(() => ({
    item: askItem,
    order: async () => ({
      speaker: `agent:${uniqueHandle('contract')}`,
      message: 'How should I open a first message?',
    }),
    answer: paidAskAnswer(venue.deps),
    undelivered: ({ speaker }) => ({
      orderId: `contract:${speaker}`,
      credited: 3,
      error: 'the matchmaker could not answer: the price was credited',
    }),
    documentedPrice: documentedPrice(askItem),
    challenge: async () => {
      const agent = await createAgent(venue)
      return post(
        askItem.path,
        { message: 'How should I open a first message?' },
        { authorization: `Bearer ${agent.credential}` },
      )
    },
  })))

describe('chat_topup', () =>
  contract(() => ({
    item: topupItem,
    order: async () => ({ wallet: freshWallet() }),
    answer: topupAnswer,
    documentedPrice: documentedPrice(topupItem),
    challenge: async () => {
      const { cookie } = await signInToChat(venue.url)
      return post(topupItem.path, {}, { cookie })
    },
  })))

/** The venue's source files (tests left out). */
const sourceFiles = (folder = fileURLToPath(new URL('.', import.meta.url))): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })

describe('PAID_ITEMS', () => {
  it('every item the venue declares is in PAID_ITEMS, and every sale sells one of them', async () => {
    const declared: string[] = []
    for (const file of sourceFiles()) {
      const text = readFileSync(file, 'utf8')
      // A sale without a declaration would write a kind no item (and so no reconciler) knows.
      expect(text, file).not.toMatch(/import \{[^}]*\bsell\b[^}]*\} from '@agents\/payments'/)
      for (const [, name] of text.matchAll(/export const (\w+) = definePaidItem\(/g)) {
        declared.push(name!)
        const module = (await import(file)) as Record<string, unknown>
        expect(PAID_ITEMS, `${name} (${file})`).toContain(module[name!])
      }
    }
    expect(declared).toHaveLength(PAID_ITEMS.length)
  })

  it('every kind the ledger holds has an item (what the reconciler could not deliver: none)', async () => {
    const kinds = await venue.deps.database.db
      .selectDistinct({ kind: paymentLedger.kind })
      .from(paymentLedger)
    // The contracts above paid every item: its kind is in the ledger.
    expect(kinds.map(({ kind }) => kind).sort()).toEqual(
      [...new Set(PAID_ITEMS.map((item) => item.kind))].sort(),
    )
    expect(
      kindsWithoutItem(
        PAID_ITEMS,
        kinds.map(({ kind }) => kind),
      ),
    ).toEqual([])
  })
})
