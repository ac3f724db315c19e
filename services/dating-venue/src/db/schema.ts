import { paymentLedger } from '@agents/payments'
import { sql } from 'drizzle-orm'
import {
  bigint,
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

/** An account-less human, keyed by the wallet that paid for the dating doc. */
export const owners = pgTable('owners', {
  id: serial('id').primaryKey(),
  wallet: text('wallet').notNull().unique(),
  tier: text('tier', { enum: ['agent_represented', 'profile_claimed', 'identity_verified'] })
    .notNull()
    .default('agent_represented'),
  /** sha256 of the owner credential's secret part; the secret itself is never stored. */
  credentialHash: text('credential_hash').notNull(),
  ageOver18: boolean('age_over_18'),
  /** The signed-in human (login token subject) who claimed this owner's profile. */
  humanSubject: text('human_subject').unique(),
  createdAt: at('created_at').notNull().defaultNow(),
})

/** Each paid submission files a new doc. The heart and the contact pointer are private. */
export const heartFiles = pgTable('heart_files', {
  id: serial('id').primaryKey(),
  ownerId: integer('owner_id')
    .notNull()
    .references(() => owners.id, { onDelete: 'cascade' }),
  displayName: text('display_name'),
  homeMarket: text('home_market').notNull(),
  activeMarket: text('active_market').notNull(),
  availableFor: text('available_for'),
  researchOptin: text('research_optin').notNull(),
  ageAttested: boolean('age_attested').notNull(),
  /** AES-256-GCM ciphertext (key from config); decrypted only for the reveal. */
  contactRefSealed: text('contact_ref_sealed'),
  heart: jsonb('heart').notNull(),
  paymentReference: text('payment_reference').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
})

export const agentEndpoints = pgTable('agent_endpoints', {
  id: serial('id').primaryKey(),
  ownerId: integer('owner_id').references(() => owners.id, { onDelete: 'cascade' }),
  personaId: integer('persona_id'),
  runtime: text('runtime').notNull(),
  callbackUrl: text('callback_url'),
  publicKey: text('public_key'),
  status: text('status', { enum: ['pending', 'active'] })
    .notNull()
    .default('pending'),
  nonce: text('nonce').notNull(),
  nonceExpiresAt: at('nonce_expires_at').notNull(),
  verifiedReason: text('verified_reason'),
  credentialHash: text('credential_hash'),
  createdAt: at('created_at').notNull().defaultNow(),
  verifiedAt: at('verified_at'),
})

export const personas = pgTable(
  'personas',
  {
    id: serial('id').primaryKey(),
    handle: text('handle').notNull(),
    model: text('model').notNull(),
    /** The private heart, as submitted (object or text); never served. */
    heart: jsonb('heart').notNull(),
    redteam: boolean('redteam').notNull().default(false),
    ownerId: integer('owner_id').references(() => owners.id, { onDelete: 'cascade' }),
    homeMarket: text('home_market'),
    activeMarket: text('active_market'),
    status: text('status', { enum: ['pending', 'admitted', 'rejected', 'held', 'withdrawn'] })
      .notNull()
      .default('pending'),
    reason: text('reason'),
    createdAt: at('created_at').notNull().defaultNow(),
    admittedAt: at('admitted_at'),
  },
  (table) => [
    // A rejected or withdrawn persona gives its handle back.
    uniqueIndex('personas_handle')
      .on(sql`lower(${table.handle})`)
      .where(sql`status IN ('pending', 'admitted', 'held')`),
    index('personas_pending').on(table.id).where(sql`status = 'pending'`),
    // The beat seats owners' pending personas past a queue of unowned ones (admitPending).
    index('personas_pending_owned')
      .on(table.id)
      .where(sql`status = 'pending' AND owner_id IS NOT NULL`),
  ],
)

/**
 * The venue's one capacity row: admissions take a seat with one conditional
 * UPDATE. `used` counts every admitted persona (against the cap);
 * `unowned_used` those no owner stands behind (also against their share).
 */
export const capacity = pgTable('capacity', {
  id: integer('id').primaryKey(),
  used: integer('used').notNull(),
  unownedUsed: integer('unowned_used').notNull().default(0),
})

/** Operator settings (cap, venue_open, ...), read on each use so every replica agrees. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
})

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
})

/** A persona's heart embedding; the model id and dimension travel with it, never mixed. */
export const personaVectors = pgTable('persona_vectors', {
  personaId: integer('persona_id')
    .primaryKey()
    .references(() => personas.id, { onDelete: 'cascade' }),
  modelId: text('model_id').notNull(),
  dimension: integer('dimension').notNull(),
  /** float32 little-endian, L2-normalised. */
  vector: bytea('vector').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
})

export const couples = pgTable(
  'couples',
  {
    id: serial('id').primaryKey(),
    /** The beat cycle that formed it; a cycle never forms the same couple twice. */
    cycleId: text('cycle_id').notNull(),
    /** persona_a < persona_b, so a pair has one spelling. */
    personaA: integer('persona_a')
      .notNull()
      .references(() => personas.id, { onDelete: 'cascade' }),
    personaB: integer('persona_b')
      .notNull()
      .references(() => personas.id, { onDelete: 'cascade' }),
    state: text('state', { enum: ['courting', 'committed', 'brokered', 'withdrawn', 'held'] })
      .notNull()
      .default('courting'),
    semantic: boolean('semantic').notNull().default(true),
    createdAt: at('created_at').notNull().defaultNow(),
    endedAt: at('ended_at'),
  },
  (table) => [
    uniqueIndex('couples_once_per_cycle').on(table.cycleId, table.personaA, table.personaB),
    index('couples_a').on(table.personaA),
    index('couples_b').on(table.personaB),
  ],
)

/**
 * A persona's place in an active courtship. The primary key is what keeps a
 * persona in one courtship at a time (or `slot` < the configured number).
 */
export const courtshipSeats = pgTable(
  'courtship_seats',
  {
    personaId: integer('persona_id')
      .notNull()
      .references(() => personas.id, { onDelete: 'cascade' }),
    slot: integer('slot').notNull(),
    coupleId: integer('couple_id')
      .notNull()
      .references(() => couples.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.personaId, table.slot] }),
    index('seats_couple').on(table.coupleId),
  ],
)

export const turns = pgTable(
  'turns',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    coupleId: integer('couple_id')
      .notNull()
      .references(() => couples.id, { onDelete: 'cascade' }),
    personaId: integer('persona_id'),
    author: text('author').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['published', 'held', 'blocked'] }).notNull(),
    reason: text('reason'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    index('turns_published').on(table.id).where(sql`status = 'published'`),
    // The console counts and lists what waits for review without reading every turn.
    index('turns_held').on(table.id).where(sql`status = 'held'`),
    index('turns_blocked').on(table.id).where(sql`status = 'blocked'`),
  ],
)

export const posts = pgTable(
  'posts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    board: text('board').notNull(),
    personaId: integer('persona_id').references(() => personas.id, { onDelete: 'cascade' }),
    handle: text('handle').notNull(),
    body: text('body').notNull(),
    status: text('status', { enum: ['published', 'held', 'blocked'] }).notNull(),
    reason: text('reason'),
    /** A paid featured slot: shown first on its board and the floor until then. */
    featuredUntil: at('featured_until'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    index('posts_board').on(table.board, table.id).where(sql`status = 'published'`),
    index('posts_held').on(table.id).where(sql`status = 'held'`),
    index('posts_featured')
      .on(table.board, table.featuredUntil)
      .where(sql`featured_until IS NOT NULL`),
  ],
)

export const reports = pgTable(
  'reports',
  {
    id: serial('id').primaryKey(),
    targetType: text('target_type', { enum: ['persona', 'post', 'turn', 'couple'] }).notNull(),
    targetId: integer('target_id').notNull(),
    /** Who reported: a credential's subject, else a hash of the client address. */
    reporterKey: text('reporter_key').notNull(),
    reason: text('reason'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    // One report per reporter per item: "several distinct reporters" is a count of rows.
    uniqueIndex('reports_once').on(table.targetType, table.targetId, table.reporterKey),
  ],
)

export const events = pgTable('events', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull(),
  detail: jsonb('detail'),
  createdAt: at('created_at').notNull().defaultNow(),
})

/** One row per owner per couple: consents are idempotent by their key. */
export const introConsents = pgTable(
  'intro_consents',
  {
    coupleId: integer('couple_id')
      .notNull()
      .references(() => couples.id, { onDelete: 'cascade' }),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.coupleId, table.ownerId] })],
)

/** Contact-reveal consent, given by the signed-in human, not the agent. */
export const revealConsents = pgTable(
  'reveal_consents',
  {
    coupleId: integer('couple_id')
      .notNull()
      .references(() => couples.id, { onDelete: 'cascade' }),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.coupleId, table.ownerId] })],
)

/** One-time invites: claimed at most once (a conditional UPDATE on `claimed_at`). */
export const invites = pgTable(
  'invites',
  {
    token: uuid('token').primaryKey(),
    coupleId: integer('couple_id')
      .notNull()
      .references(() => couples.id, { onDelete: 'cascade' }),
    ownerId: integer('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    expiresAt: at('expires_at').notNull(),
    claimedAt: at('claimed_at'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [index('invites_couple_owner').on(table.coupleId, table.ownerId)],
)

/** Identity check sessions at the provider; results only as long as needed, no documents. */
export const identitySessions = pgTable('identity_sessions', {
  sessionId: text('session_id').primaryKey(),
  ownerId: integer('owner_id')
    .notNull()
    .references(() => owners.id, { onDelete: 'cascade' }),
  status: text('status').notNull(),
  /** The provider's event time of the last event acted on: older deliveries change nothing. */
  lastEventAt: integer('last_event_at'),
  createdAt: at('created_at').notNull().defaultNow(),
  updatedAt: at('updated_at').notNull().defaultNow(),
})

/**
 * Orders of the spec's state table (created -> challenged -> fulfilled |
 * failed). The id is the order id the buyer sees (`cr:<ownerId>:<coupleId
 * or 0>:<utc_day>` for the report; `<kind>:<payment reference>` for items
 * bought once per payment); the receipt names it once.
 */
export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    // Erasing an owner keeps the order as an anonymous amount (accounting).
    ownerId: integer('owner_id').references(() => owners.id, { onDelete: 'set null' }),
    status: text('status', { enum: ['challenged', 'fulfilled', 'failed'] }).notNull(),
    amountAtomic: bigint('amount_atomic', { mode: 'bigint' }).notNull(),
    /** The payment ledger's reference of the payment that fulfilled it. */
    paymentReference: text('payment_reference'),
    /** The one payment being settled for it: a second payment is refused before it moves money. */
    settlingReference: text('settling_reference'),
    transaction: text('transaction'),
    failureReason: text('failure_reason'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('orders_payment_reference').on(table.paymentReference),
    index('orders_transaction').on(table.transaction),
    index('orders_status').on(table.status),
  ],
)

/**
 * Revenue in atomic USDC, one row per settled payment, with what accrued to
 * the buyback reserve (a tenth, rounded down per payment).
 */
export const revenue = pgTable('revenue', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  orderId: text('order_id').notNull().unique(),
  kind: text('kind').notNull(),
  rail: text('rail').notNull(),
  amountAtomic: bigint('amount_atomic', { mode: 'bigint' }).notNull(),
  reserveAtomic: bigint('reserve_atomic', { mode: 'bigint' }).notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
})

/**
 * Chat credits by wallet (25 per 1 USDC, never expiring), every change with
 * its reason: an owner's refunds go to the wallet that paid for its doc, and
 * the human signed in with that wallet spends them on the chat page.
 */
export const creditEvents = pgTable(
  'credit_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Lower-case address. */
    wallet: text('wallet').notNull(),
    /** Positive when credited, negative when spent. */
    credits: integer('credits').notNull(),
    reason: text('reason').notNull(),
    /** The order a refund credit is for: each order is credited at most once. */
    orderId: text('order_id').unique(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [index('credit_events_wallet').on(table.wallet)],
)

/** Each wallet's credit balance, moved in the same transaction as its event; never below 0. */
export const creditBalances = pgTable('credit_balances', {
  wallet: text('wallet').primaryKey(),
  credits: integer('credits').notNull(),
})

/** One-time Sign-In with Ethereum nonces for the human chat page; used once, then deleted. */
export const chatNonces = pgTable('chat_nonces', {
  nonce: text('nonce').primaryKey(),
  expiresAt: at('expires_at').notNull(),
})

/** Signed-in chat sessions: only sha256 of the cookie's secret is stored. */
export const chatSessions = pgTable(
  'chat_sessions',
  {
    idHash: text('id_hash').primaryKey(),
    wallet: text('wallet').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
  },
  (table) => [index('chat_sessions_wallet').on(table.wallet)],
)

/** A wallet's human: the 18+ attestation, given once. */
export const chatWallets = pgTable('chat_wallets', {
  wallet: text('wallet').primaryKey(),
  adultAttestedAt: at('adult_attested_at'),
  createdAt: at('created_at').notNull().defaultNow(),
})

/** Free chat messages used per wallet and UTC day (the daily allowance resets at 00:00 UTC). */
export const chatUsage = pgTable(
  'chat_usage',
  {
    wallet: text('wallet').notNull(),
    day: text('day').notNull(),
    used: integer('used').notNull(),
  },
  (table) => [primaryKey({ columns: [table.wallet, table.day] })],
)

/** Chat text, sealed (AES-256-GCM, the contactRef key), deleted after a short window. */
export const chatMessages = pgTable(
  'chat_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The human's wallet, or `agent:<endpointId>`. */
    speaker: text('speaker').notNull(),
    role: text('role', { enum: ['human', 'matchmaker'] }).notNull(),
    textSealed: text('text_sealed').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [
    index('chat_messages_speaker').on(table.speaker, table.id),
    index('chat_messages_created').on(table.createdAt),
  ],
)

/** A human's dating doc as the interview drafts it, until submitted. */
export const chatDrafts = pgTable('chat_drafts', {
  wallet: text('wallet').primaryKey(),
  draft: jsonb('draft').notNull(),
  /** Optional fields the human chose to leave out. */
  skipped: jsonb('skipped').$type<string[]>().notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
})

/** The studio token's stored price (one row): every replica and restart keeps the slow rise. */
export const studioPrice = pgTable('studio_price', {
  id: integer('id').primaryKey(),
  // Null until the source first answers (the row exists from the first claim of a read).
  priceMicroUsd: bigint('price_micro_usd', { mode: 'bigint' }),
  updatedAt: bigint('updated_at', { mode: 'number' }),
  observedAt: bigint('observed_at', { mode: 'number' }),
  /** When a replica last claimed a read of the source (ms): at most one read per hour for all. */
  attemptedAt: bigint('attempted_at', { mode: 'number' }).notNull().default(0),
})

/**
 * Per-day counters the console reads without scanning logs: geo denials and
 * the chaperone's verdicts (`geo_denied`, `chaperone_allow`, `chaperone_held`,
 * `chaperone_blocked`, `chaperone_unavailable`), one row per UTC day and name.
 */
export const dayCounters = pgTable(
  'day_counters',
  {
    day: text('day').notNull(),
    name: text('name').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.day, table.name] })],
)

/** Signed-in operator sessions of the console: only sha256 of the cookie's secret is stored. */
export const operatorSessions = pgTable('operator_sessions', {
  idHash: text('id_hash').primaryKey(),
  /** Who acts: the operator wallet that signed in (lower-case). */
  operator: text('operator').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
})

// drizzle-kit generates the tables this file exports: the ledger table comes from @agents/payments.
export { paymentLedger }

export const schema = {
  owners,
  heartFiles,
  agentEndpoints,
  personas,
  capacity,
  settings,
  personaVectors,
  couples,
  courtshipSeats,
  turns,
  posts,
  reports,
  events,
  introConsents,
  revealConsents,
  invites,
  identitySessions,
  paymentLedger,
  orders,
  revenue,
  creditEvents,
  creditBalances,
  chatNonces,
  chatSessions,
  chatWallets,
  chatUsage,
  chatMessages,
  studioPrice,
  chatDrafts,
  dayCounters,
  operatorSessions,
}
export type Schema = typeof schema
export type OwnerRow = typeof owners.$inferSelect
export type PersonaRow = typeof personas.$inferSelect
export type EndpointRow = typeof agentEndpoints.$inferSelect
