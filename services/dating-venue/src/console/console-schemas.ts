import { SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

const Usdc = z
  .string()
  .regex(/^\d+\.\d{2,6}$/)
  .openapi({ example: '56.10' })
const Count = z.number().int().min(0)
const BudgetNow = z.object({
  points: Count,
  window_seconds: Count,
  remaining: Count,
  reset_seconds: Count,
})

/** `GET /admin.json`: the spec's stable keys, defined in the README ("Operator console"). */
export const AdminSnapshot = z
  .object({
    health: z.object({
      ok: z.literal(true),
      database: z.literal('ok'),
      payments: z.enum(['ok', 'degraded']),
    }),
    sim_mode: z.boolean().openapi({
      description: 'true while the venue is not open to the public (setting venue_open false)',
    }),
    admitted: Count,
    cap: Count,
    cap_used_pct: z
      .number()
      .min(0)
      .openapi({ description: 'admitted / cap, percent, one decimal' }),
    unowned_share_pct: Count.max(100).openapi({
      description:
        'percent of the cap personas without an owner may hold (setting unowned_share_pct, else VENUE_UNOWNED_SHARE_PCT)',
    }),
    unowned_seats: Count.openapi({
      description:
        'seats personas without an owner may hold: cap x unowned_share_pct / 100, rounded down',
    }),
    unowned_admitted: Count.openapi({
      description: 'seats personas without an owner hold now (counted against the cap too)',
    }),
    outbound_budgets: z
      .object({
        global: BudgetNow,
        paid: BudgetNow,
        per_client: z.object({ points: Count, window_seconds: Count }),
      })
      .openapi({
        description:
          'outbound calls (model, moderation, embeddings) left in the current window: all free requests together (global), paid requests (paid), and the policy each client gets (per_client)',
      }),
    couples_by_state: z.object({
      courting: Count,
      committed: Count,
      brokered: Count,
      withdrawn: Count,
      held: Count,
    }),
    turns_by_status: z.object({ published: Count, held: Count, blocked: Count }),
    chaperone_today: z.object({
      allow: Count,
      held: Count,
      blocked: Count,
      unavailable: Count,
    }),
    orders_by_status: z.object({ challenged: Count, fulfilled: Count, failed: Count }),
    revenue_usdc: Usdc,
    buyback_reserve_usdc: Usdc,
    geo_denials_today: Count,
    intros_to_broker: Count.openapi({ description: 'committed couples waiting for the broker' }),
    recent_events: z.array(
      z.object({
        id: z.number().int(),
        kind: z.string(),
        at: z.string().openapi({ format: 'date-time' }),
        detail: z.record(z.string(), z.unknown()).nullable(),
      }),
    ),
  })
  .openapi('AdminSnapshot')

const Id = z.number().int()
export const ReviewQueue = z
  .object({
    personasForReview: z.array(z.object({ id: Id, handle: z.string(), at: z.string() })),
    heldPersonas: z.array(
      z.object({ id: Id, handle: z.string(), reason: z.string().nullable(), reporters: Id }),
    ),
    heldPosts: z.array(
      z.object({
        id: Id,
        board: z.string(),
        handle: z.string(),
        body: z.string(),
        reason: z.string().nullable(),
        featured: z.boolean(),
        reporters: Id,
      }),
    ),
    heldTurns: z.array(
      z.object({
        id: Id,
        coupleId: Id,
        body: z.string(),
        reason: z.string().nullable(),
        reporters: Id,
      }),
    ),
    heldCouples: z.array(z.object({ id: Id, reporters: Id })),
    reported: z.array(
      z.object({
        targetType: z.enum(['persona', 'post', 'turn', 'couple']),
        targetId: Id,
        reporters: Id,
      }),
    ),
    introsToBroker: z.array(z.object({ coupleId: Id, since: z.string() })),
  })
  .openapi('ReviewQueue')

export const Trends = z
  .object({
    days: z.array(
      z.object({
        day: z.string().openapi({ example: '2026-11-25' }),
        admissions: Count,
        couples: Count,
        revenue_usdc: Usdc,
      }),
    ),
  })
  .openapi('ConsoleTrends')

const PositiveId = z.number().int().min(1).max(2_147_483_647)
export const ModerateBody = z
  .object({
    targetType: z.enum(['post', 'turn', 'persona', 'couple']),
    targetId: PositiveId,
    decision: z.enum(['approve', 'reject']),
    reason: SafeText.trim().min(1).max(500).optional(),
  })
  .strict()
  .openapi('Moderation')

export const Moderated = z
  .object({
    ok: z.literal(true),
    targetType: z.enum(['post', 'turn', 'persona', 'couple']),
    targetId: Id,
    status: z.enum(['published', 'blocked', 'pending', 'withdrawn', 'unchanged']).openapi({
      description: '`unchanged`: an item only reported keeps its place, its reports cleared',
    }),
  })
  .openapi('Moderated')

export const CreditBody = z
  .object({ orderId: SafeText.min(1).max(200) })
  .strict()
  .openapi('OrderCredit')

export const Credited = z
  .object({ ok: z.literal(true), orderId: z.string(), wallet: z.string(), credits: Count })
  .openapi('OrderCredited')

export const OperatorNonce = z
  .object({
    nonce: z.string(),
    domain: z.string(),
    uri: z.string(),
    chainId: z.literal(8453),
    statement: z.string(),
    expiresAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('OperatorNonce')

export const OperatorSignInBody = z
  .object({
    message: SafeText.min(1).max(4096).openapi({ description: 'the EIP-4361 message, as signed' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/),
  })
  .strict()
  .openapi('OperatorSignIn')

export const OperatorSignedIn = z
  .object({ operator: z.string().openapi({ description: 'the operator wallet, lower-case' }) })
  .openapi('OperatorSignedIn')
