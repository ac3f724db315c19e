import { PAYMENT_LEDGER_ERASES, type PaymentLedger } from '@agents/payments'
import { type AnyTransaction, pgArray, rowsOf } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import { personasErasure } from '../admission/persona-state.ts'
import { couplesErasure } from '../couples/couple-state.ts'
import type { ErasedTables } from '../db/erased-tables.ts'
import type { VenueDeps } from '../deps.ts'
import { notifyAgent } from '../notify/notify-agent.ts'
import { creditsErasure } from '../orders/credits.ts'
import { ordersErasure } from '../orders/order-erasure.ts'

/**
 * Who asked for the erasure, recorded in the `owner_erased` event without
 * the owner's id (an operator by wallet, or `token`, as every console action).
 */
export type ErasedBy = 'owner' | 'agent' | 'human' | 'operator'

export type ErasureAnswer = {
  erased: true
  ownerId: number
  personas: number
  couplesEnded: number
  postsRemoved: number
}

const ints = (values: readonly number[]) => sql`${pgArray(values)}::int[]`
const texts = (values: readonly string[]) => sql`${pgArray(values)}::text[]`

/** Whether `text` names `@handle` as a whole handle (not the start of a longer one). */
const namesHandle = (text: string, handle: string) => {
  const at = `@${handle}`.toLowerCase()
  const lower = text.toLowerCase()
  for (let index = lower.indexOf(at); index >= 0; index = lower.indexOf(at, index + 1)) {
    const next = lower[index + at.length]
    if (next === undefined || !/[a-z0-9_-]/.test(next)) return true
  }
  return false
}

/**
 * The tables erasure still writes itself, whose writers have no erasure of
 * their own yet: the owner and its agents' rows, reports, the venue's
 * notification lines and events that name them, the human chat of its
 * wallet, and another owner's doc this wallet paid for (its reference's hash).
 */
const ERASED_HERE = {
  owners: 'deleted',
  agent_endpoints: 'deleted',
  reports: 'deleted',
  posts: 'deleted',
  events: 'deleted',
  chat_messages: 'deleted',
  chat_drafts: 'deleted',
  chat_usage: 'deleted',
  chat_sessions: 'deleted',
  chat_wallets: 'deleted',
  heart_files: 'anonymized',
} as const satisfies ErasedTables

/** Every part of an erasure, by who declares it (erasure-coverage.test.ts checks the schema against them). */
export const ERASURE_PARTS: ReadonlyArray<{ by: string; erases: ErasedTables }> = [
  { by: 'admission/persona-state.ts', erases: personasErasure.erases },
  { by: 'couples/couple-state.ts', erases: couplesErasure.erases },
  { by: 'orders/order-erasure.ts', erases: ordersErasure.erases },
  { by: 'orders/credits.ts', erases: creditsErasure.erases },
  { by: '@agents/payments', erases: PAYMENT_LEDGER_ERASES },
  { by: 'erasure/erase-owner.ts', erases: ERASED_HERE },
]

/**
 * Everything of one owner, removed in one transaction (the owner row is
 * locked first, so two erasures of one owner do not interleave). A couple
 * with another persona ends as a withdrawal would end it (seats freed, the
 * partner free for the next beat), and its record and turns go with the
 * erased persona, whose words they hold. Orders and revenue stay as
 * anonymous amounts. Returns the partners to tell, or undefined when there
 * is no such owner.
 */
const eraseInTransaction = async (
  tx: AnyTransaction,
  ledger: PaymentLedger,
  ownerId: number,
  recorded: { by: ErasedBy; operator?: string },
) => {
  const run = async <row>(query: SQL) => rowsOf<row>(await tx.execute(query))
  const [owner] = await run<{ wallet: string }>(
    sql`SELECT wallet FROM owners WHERE id = ${ownerId} FOR UPDATE`,
  )
  if (!owner) return undefined
  // Chat tables, credits and request keys hold an EVM wallet in lower case.
  const wallet = owner.wallet.startsWith('0x') ? owner.wallet.toLowerCase() : owner.wallet
  const personas = await personasErasure.lock(tx, ownerId)
  const personaIds = personas.map((persona) => persona.id)
  const endpoints = await run<{ id: number }>(
    sql`SELECT id FROM agent_endpoints WHERE owner_id = ${ownerId} OR persona_id = ANY(${ints(personaIds)})`,
  )
  const endpointIds = endpoints.map((endpoint) => endpoint.id)
  const { coupleIds, partners } = await couplesErasure.lock(tx, personaIds)

  await personasErasure.releaseSeats(tx, personas)

  // Reports about its items, and reports it filed.
  const postIds = (
    await run<{ id: number }>(sql`SELECT id FROM posts WHERE persona_id = ANY(${ints(personaIds)})`)
  ).map((post) => post.id)
  const turnIds = (
    await run<{ id: number }>(sql`SELECT id FROM turns WHERE couple_id = ANY(${ints(coupleIds)})`)
  ).map((turn) => turn.id)
  await tx.execute(sql`
    DELETE FROM reports
    WHERE (target_type = 'persona' AND target_id = ANY(${ints(personaIds)}))
       OR (target_type = 'post' AND target_id = ANY(${ints(postIds)}))
       OR (target_type = 'turn' AND target_id = ANY(${ints(turnIds)}))
       OR (target_type = 'couple' AND target_id = ANY(${ints(coupleIds)}))
       OR reporter_key = ${`owner:${ownerId}`}
       OR reporter_key = ANY(${texts(endpointIds.map((id) => `agent:${id}`))})`)

  // The venue's notification lines that name its personas or the owner.
  const names = [...personas.map((persona) => persona.handle), `owner-${ownerId}`]
  // strpos narrows the lines in SQL; namesHandle then rejects longer handles that start alike.
  const notifications = await run<{ id: number; body: string }>(
    sql`SELECT id, body FROM posts
        WHERE board = 'notifications' AND persona_id IS NULL
          AND EXISTS (SELECT 1 FROM unnest(${texts(names.map((n) => `@${n}`.toLowerCase()))}) AS n(at)
                      WHERE strpos(lower(body), n.at) > 0)`,
  )
  const named = notifications
    .filter((post) => names.some((handle) => namesHandle(post.body, handle)))
    .map((post) => post.id)
  await tx.execute(sql`DELETE FROM posts WHERE id = ANY(${sql`${pgArray(named)}::bigint[]`})`)

  // Orders and payments stay as anonymous amounts. A payment's reference (and every order id
  // built from it) names or points at the paying wallet: the ledger replaces it by its keyed
  // hash (the payments package's anonymizePayments), and each copy here follows.
  const orders = await ordersErasure.of(tx, ownerId)
  const heartReferences = (
    await run<{ payment_reference: string }>(
      sql`SELECT payment_reference FROM heart_files WHERE owner_id = ${ownerId}`,
    )
  ).map((row) => row.payment_reference)
  const references = [
    ...heartReferences,
    ...orders.flatMap((order) => [order.payment_reference, order.settling_reference]),
  ].filter((reference): reference is string => Boolean(reference))
  const anonymized = new Map(
    (
      await ledger.anonymize(tx, {
        references,
        payers: [wallet],
        requestKeys: orders.map((order) => `report:${order.id}`),
        requestKeyPrefixes: [
          ...['ask', 'topup', 'submit-doc'].map((kind) => `${kind}:${wallet}:`),
          ...personaIds.map((id) => `featured:${id}:`),
          ...endpointIds.map((id) => `ask:agent:${id}:`),
        ],
      })
    ).map((payment) => [payment.reference, payment.anonymized]),
  )
  // A reference of the owner's with no ledger row (a payment withdrawn, a legacy receipt).
  for (const reference of references)
    if (!reference.startsWith('erased:') && !anonymized.has(reference))
      anonymized.set(reference, ledger.anonymizedReference(reference))
  const orderIds = await ordersErasure.anonymize(tx, ownerId, anonymized)
  // Another owner's doc this wallet paid for keeps its reference's hash too.
  await tx.execute(sql`
    UPDATE heart_files AS h SET payment_reference = m.anonymized
    FROM unnest(${texts([...anonymized.keys()])}, ${texts([...anonymized.values()])})
      AS m(reference, anonymized)
    WHERE h.payment_reference = m.reference`)

  // Events that name the owner, its personas, endpoints, couples, orders or wallet.
  await tx.execute(sql`
    DELETE FROM events
    WHERE (detail->>'ownerId')::text = ${String(ownerId)}
       OR (detail->>'to')::text = ${String(ownerId)}
       OR (detail->>'personaId')::text = ANY(${texts(personaIds.map(String))})
       OR (detail->>'endpointId')::text = ANY(${texts(endpointIds.map(String))})
       OR (detail->>'coupleId')::text = ANY(${texts(coupleIds.map(String))})
       OR (detail->>'orderId')::text = ANY(${texts(orderIds)})
       OR lower(detail->>'wallet') = ${wallet}
       OR (jsonb_typeof(detail->'personas') = 'array'
           AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(detail->'personas') AS p(id)
                       WHERE p.id = ANY(${texts(personaIds.map(String))})))`)

  // The human chat of the owner's wallet and of its agents, and its credits.
  const speakers = [wallet, ...endpointIds.map((id) => `agent:${id}`)]
  await tx.execute(sql`DELETE FROM chat_messages WHERE speaker = ANY(${texts(speakers)})`)
  for (const table of ['chat_drafts', 'chat_usage', 'chat_sessions', 'chat_wallets'] as const)
    await tx.execute(sql`DELETE FROM ${sql.identifier(table)} WHERE wallet = ${wallet}`)
  await creditsErasure.remove(tx, wallet)

  // The rest goes by cascade from these rows: heart files, vectors, seats, consents, invites,
  // identity sessions, its posts (boards and the floor), and its couples with their turns.
  await couplesErasure.remove(tx, coupleIds)
  await tx.execute(sql`DELETE FROM agent_endpoints WHERE id = ANY(${ints(endpointIds)})`)
  await personasErasure.remove(tx, personaIds)
  await tx.execute(sql`DELETE FROM owners WHERE id = ${ownerId}`)
  await tx.execute(
    sql`INSERT INTO events (kind, detail) VALUES ('owner_erased', ${JSON.stringify(recorded)}::jsonb)`,
  )
  return {
    partners,
    personaIds,
    answer: {
      erased: true as const,
      ownerId,
      personas: personaIds.length,
      couplesEnded: partners.length,
      postsRemoved: postIds.length + named.length,
    },
  }
}

/**
 * Erases an owner and everything of it (README, "Erasure"); undefined when
 * there is no such owner. The partners of its ended couples are told as
 * for a withdrawal once the erasure has committed (a signed callback, else
 * a line on the notifications board that names only the partner).
 */
export const eraseOwner = async (
  deps: VenueDeps,
  { ownerId, by, operator }: { ownerId: number; by: ErasedBy; operator?: string },
): Promise<ErasureAnswer | undefined> => {
  const recorded = { by, ...(operator ? { operator } : {}) }
  const done = await deps.database.db.transaction((tx) =>
    eraseInTransaction(tx, deps.payments.ledger, ownerId, recorded),
  )
  if (!done) return undefined
  // The matchmaker's kept index holds the personas' vectors: out of it now, not at the next beat.
  for (const personaId of done.personaIds) deps.matchPool.erase(personaId)
  await Promise.all(
    done.partners.map(async (partner) => {
      const [endpoint] = rowsOf<{ id: number; callback_url: string | null }>(
        await deps.database.db.execute(
          sql`SELECT id, callback_url FROM agent_endpoints
              WHERE status = 'active' AND persona_id = ${partner.personaId} LIMIT 1`,
        ),
      )
      await notifyAgent(
        deps,
        endpoint ? { id: endpoint.id, callbackUrl: endpoint.callback_url } : undefined,
        partner.handle,
        {
          type: 'withdrawn',
          coupleId: partner.coupleId,
          personaId: partner.personaId,
          reason: 'the other side withdrew',
        },
        `couple ${partner.coupleId} ended: the other side withdrew; you are free for the next beat`,
      ).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'erasure: telling a partner failed'),
      )
    }),
  )
  return done.answer
}
