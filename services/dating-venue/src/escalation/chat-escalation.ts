import { rowsOf } from '@agents/service-kit/db'
import { sql } from 'drizzle-orm'
import { getAddress } from 'viem'
import type { VenueDeps } from '../deps.ts'

type Row = {
  id: number
  state: 'courting' | 'committed' | 'brokered'
  persona_id: number
  handle: string
  partner: string
  consented: boolean
  your_turn: boolean
  token: string | null
  expires_at: Date | string | null
}

const iso = (value: Date | string) => new Date(value).toISOString()

/**
 * The escalation as the human of the chat page sees it: the live couples of
 * the owner its wallet keys (courting, committed or brokered), each with the
 * partner's handle only (never its heart, its owner or its contact), whether
 * this owner gave intro consent, whose turn it is, and, once minted, the
 * one-time invite link an agent would have been handed. Served only to that
 * wallet's own session: it is the only place a human without an agent
 * receives its invite.
 */
export const chatEscalation = async (
  deps: Pick<VenueDeps, 'database' | 'baseUrl'>,
  wallet: string,
) => {
  const spellings = [...new Set([wallet.toLowerCase(), getAddress(wallet)])]
  const ofWallet = sql`o.wallet IN (${sql.join(
    spellings.map((spelling) => sql`${spelling}`),
    sql`, `,
  )})`
  const [owner] = rowsOf<{ id: number; tier: string }>(
    await deps.database.db.execute(
      sql`SELECT o.id, o.tier FROM owners o WHERE ${ofWallet} LIMIT 1`,
    ),
  )
  const rows = rowsOf<Row>(
    await deps.database.db.execute(sql`
      SELECT c.id, c.state, mine.id AS persona_id, mine.handle, partner.handle AS partner,
        EXISTS (SELECT 1 FROM intro_consents ic WHERE ic.couple_id = c.id AND ic.owner_id = o.id) AS consented,
        COALESCE((SELECT t.persona_id <> mine.id FROM turns t
                  WHERE t.couple_id = c.id AND t.persona_id IS NOT NULL
                  ORDER BY t.id DESC LIMIT 1), true) AS your_turn,
        live.token, live.expires_at
      FROM owners o
      JOIN personas mine ON mine.owner_id = o.id
      JOIN couples c ON mine.id IN (c.persona_a, c.persona_b)
      JOIN personas partner
        ON partner.id = CASE WHEN c.persona_a = mine.id THEN c.persona_b ELSE c.persona_a END
      LEFT JOIN LATERAL (
        SELECT i.token::text AS token, i.expires_at FROM invites i
        WHERE i.couple_id = c.id AND i.owner_id = o.id
          AND i.claimed_at IS NULL AND i.expires_at > now()
        ORDER BY i.created_at DESC LIMIT 1
      ) live ON true
      WHERE ${ofWallet}
        AND c.state IN ('courting', 'committed', 'brokered')
      ORDER BY c.id`),
  )
  return {
    /** The owner the wallet keys, which its session acts for (intro consent names it). */
    ownerId: owner?.id ?? null,
    /** The owner's tier (null before the wallet submitted a doc): profile_claimed once the invite is claimed. */
    tier: (owner?.tier ?? null) as
      | 'agent_represented'
      | 'profile_claimed'
      | 'identity_verified'
      | null,
    couples: rows.map((row) => ({
      id: row.id,
      state: row.state,
      personaId: row.persona_id,
      handle: row.handle,
      partner: row.partner,
      consented: row.consented,
      yourTurn: row.your_turn,
      invite:
        row.token && row.expires_at
          ? {
              url: `${deps.baseUrl()}/claim?token=${row.token}`,
              expiresAt: iso(row.expires_at),
            }
          : null,
    })),
  }
}
