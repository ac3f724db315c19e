import type { AnyTransaction } from '@agents/service-kit/db'
import { type SQL, sql } from 'drizzle-orm'
import type { VenueDatabase } from '../db/open.ts'

/**
 * How long each kind of data is kept (README, "Data retention"). Every
 * period counts back from the sweep's clock.
 */
export type RetentionPeriods = {
  /** Operational data: events, reports, held and blocked items, payment details, drafts, usage. */
  operationalDays: number
  /** Identity check sessions (their status; the result itself is the owner's tier). */
  identityDays: number
  /** Grace after expiry for nonces, chat sessions, invites and unverified agent registrations. */
  expiredHours: number
  /** Sealed chat text. */
  chatHours: number
}

/** What one sweep removed (rows deleted) or anonymised (rows rewritten), by kind. */
export type RetentionCounts = Record<RetentionKind, number>

type RetentionKind =
  | 'chatMessages'
  | 'chatNonces'
  | 'chatSessions'
  | 'operatorSessions'
  | 'chatDrafts'
  | 'chatUsage'
  | 'invites'
  | 'agentRegistrations'
  | 'agentNonces'
  | 'identitySessions'
  | 'events'
  | 'reports'
  | 'heldTurns'
  | 'heldPosts'
  | 'ledgerDetails'
  | 'orderLinks'

/**
 * Its own number: the match beat and the reconciler each
 * hold theirs, and a retention sweep must never wait for (or block) them.
 */
export const RETENTION_LOCK = 7_246_105

const rowCount = (result: unknown) =>
  (result as { rowCount?: number | null; affectedRows?: number }).rowCount ??
  (result as { affectedRows?: number }).affectedRows ??
  0

const before = (now: Date, unit: 'hours' | 'days', amount: number) =>
  sql`${now.toISOString()}::timestamptz - make_interval(${sql.raw(unit)} => ${amount})`

/**
 * Each statement of a sweep: idempotent (a second sweep at the same clock
 * changes nothing), and each bounded by the clock, never by `now()`, so a
 * test can sweep at any time it chooses.
 */
const statements = (now: Date, p: RetentionPeriods): Array<[RetentionKind, SQL]> => {
  const ops = before(now, 'days', p.operationalDays)
  const expired = before(now, 'hours', p.expiredHours)
  return [
    [
      'chatMessages',
      sql`DELETE FROM chat_messages WHERE created_at < ${before(now, 'hours', p.chatHours)}`,
    ],
    ['chatNonces', sql`DELETE FROM chat_nonces WHERE expires_at < ${expired}`],
    ['chatSessions', sql`DELETE FROM chat_sessions WHERE expires_at < ${expired}`],
    ['operatorSessions', sql`DELETE FROM operator_sessions WHERE expires_at < ${expired}`],
    // An abandoned draft holds heart text the human never submitted.
    ['chatDrafts', sql`DELETE FROM chat_drafts WHERE updated_at < ${ops}`],
    ['chatUsage', sql`DELETE FROM chat_usage WHERE day < to_char(${ops}, 'YYYY-MM-DD')`],
    ['invites', sql`DELETE FROM invites WHERE expires_at < ${expired}`],
    // A registration never verified before its nonce expired can never be verified.
    [
      'agentRegistrations',
      sql`DELETE FROM agent_endpoints WHERE status = 'pending' AND nonce_expires_at < ${expired}`,
    ],
    // An active endpoint's nonce was used once; the credential is what acts now.
    [
      'agentNonces',
      sql`UPDATE agent_endpoints SET nonce = '' WHERE status = 'active' AND nonce <> '' AND nonce_expires_at < ${expired}`,
    ],
    [
      'identitySessions',
      sql`DELETE FROM identity_sessions WHERE updated_at < ${before(now, 'days', p.identityDays)}`,
    ],
    ['events', sql`DELETE FROM events WHERE created_at < ${ops}`],
    ['reports', sql`DELETE FROM reports WHERE created_at < ${ops}`],
    [
      'heldTurns',
      sql`DELETE FROM turns WHERE status IN ('held', 'blocked') AND created_at < ${ops}`,
    ],
    [
      'heldPosts',
      sql`DELETE FROM posts WHERE status IN ('held', 'blocked') AND created_at < ${ops}`,
    ],
    // Accounting keeps the reference, kind, rail, network, amount, payee and dates; who paid,
    // the signed authorization, what was delivered (a doc's heart) and the receipt go.
    [
      'ledgerDetails',
      sql`UPDATE payment_ledger
          SET payer = '', proof = '{}'::jsonb, "order" = NULL, receipt = NULL, fulfilment = NULL,
              detail = NULL, request_key = ''
          WHERE updated_at < ${ops} AND request_key <> ''
            AND (state = 'failed' OR (state = 'settled' AND fulfilled_at IS NOT NULL))`,
    ],
    // The order keeps its id, kind, status, amount, payment reference and dates.
    [
      'orderLinks',
      sql`UPDATE orders SET owner_id = NULL, transaction = NULL
          WHERE updated_at < ${ops} AND status <> 'challenged'
            AND (owner_id IS NOT NULL OR transaction IS NOT NULL)`,
    ],
  ]
}

const sweepIn = async (tx: AnyTransaction, now: Date, periods: RetentionPeriods) => {
  const counts = {} as RetentionCounts
  for (const [kind, statement] of statements(now, periods))
    counts[kind] = rowCount(await tx.execute(statement))
  return counts
}

/**
 * One retention sweep at `now`, in one transaction, by one replica at a
 * time: `ran: false` when another sweep holds the lock (that one does the
 * work). The lock is PostgreSQL's advisory lock (PGlite: the process's own),
 * taken without waiting.
 */
export const sweepRetention = async (
  database: VenueDatabase,
  periods: RetentionPeriods,
  now: Date = new Date(),
): Promise<{ ran: true; counts: RetentionCounts } | { ran: false }> => {
  const held = await database.withLock(RETENTION_LOCK, () =>
    database.db.transaction((tx) => sweepIn(tx, now, periods)),
  )
  return held.ran ? { ran: true, counts: held.value } : { ran: false }
}

/** The periods from the venue's settings (config.ts). */
export const retentionPeriods = (config: {
  VENUE_RETENTION_DAYS: number
  VENUE_RETENTION_IDENTITY_DAYS: number
  VENUE_RETENTION_EXPIRED_HOURS: number
  VENUE_CHAT_RETENTION_HOURS: number
}): RetentionPeriods => ({
  operationalDays: config.VENUE_RETENTION_DAYS,
  identityDays: config.VENUE_RETENTION_IDENTITY_DAYS,
  expiredHours: config.VENUE_RETENTION_EXPIRED_HOURS,
  chatHours: config.VENUE_CHAT_RETENTION_HOURS,
})
