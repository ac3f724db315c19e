import type pg from 'pg'

// Each query counts the rows that break one rule; every count must be 0.
const RULES = {
  // An offer whose matches took more than its capacity.
  oversold: `
    SELECT count(*) FROM swap_offers o
    JOIN (SELECT offer_id, sum(mtok) AS taken FROM swap_matches GROUP BY offer_id) m
      ON m.offer_id = o.id
    WHERE m.taken > o.mtok`,
  // mtok - remaining_mtok must equal the MTok of the offer's live matches.
  'capacity drift': `
    SELECT count(*) FROM swap_offers o
    LEFT JOIN (SELECT offer_id, sum(mtok) AS taken FROM swap_matches
               WHERE status <> 'expired' GROUP BY offer_id) m ON m.offer_id = o.id
    WHERE o.mtok - o.remaining_mtok <> coalesce(m.taken, 0)`,
  'remaining below zero': 'SELECT count(*) FROM swap_offers WHERE remaining_mtok < 0',
  // Filled exactly when used up (no offer is cancelled or expired in the bench).
  'status drift': `
    SELECT count(*) FROM swap_offers
    WHERE (status = 'filled') <> (remaining_mtok = 0) OR status NOT IN ('open', 'filled')`,
  'intents matched twice': 'SELECT count(*) - count(DISTINCT intent_id) FROM swap_matches',
  'matched intents not marked matched': `
    SELECT count(*) FROM swap_matches m JOIN swap_intents i ON i.id = m.intent_id
    WHERE i.status <> 'matched'`,
  'intents marked matched without a match': `
    SELECT count(*) FROM swap_intents i
    WHERE i.status = 'matched' AND NOT EXISTS (SELECT 1 FROM swap_matches m WHERE m.intent_id = i.id)`,
  // The match carries the intent's MTok and model and the offer's price, within the limit.
  'match terms wrong': `
    SELECT count(*) FROM swap_matches m
    JOIN swap_intents i ON i.id = m.intent_id JOIN swap_offers o ON o.id = m.offer_id
    WHERE m.mtok <> i.mtok OR o.model <> i.model OR m.unit_price_atomic <> o.price_atomic
       OR m.unit_price_atomic > i.max_price_atomic OR m.gross_atomic <> m.unit_price_atomic * m.mtok`,
} as const

const STATS = {
  offers: 'SELECT count(*) FROM swap_offers',
  'offers filled': "SELECT count(*) FROM swap_offers WHERE status = 'filled'",
  intents: 'SELECT count(*) FROM swap_intents',
  'intents left open': "SELECT count(*) FROM swap_intents WHERE status = 'open'",
  matches: 'SELECT count(*) FROM swap_matches',
} as const

const count = async (client: pg.Pool, text: string) => {
  const { rows } = await client.query<Record<string, string>>(text)
  return Number(Object.values(rows[0]!)[0])
}

/**
 * Audits the book after the run: each rule's count of offending rows (all
 * must be 0) and the book's totals. At least one offer must have filled up,
 * or the run did not exercise an offer running out of capacity.
 */
export const checkBook = async (client: pg.Pool) => {
  const broken: Record<string, number> = {}
  for (const [name, text] of Object.entries(RULES)) broken[name] = await count(client, text)
  const stats: Record<string, number> = {}
  for (const [name, text] of Object.entries(STATS)) stats[name] = await count(client, text)
  const ok = Object.values(broken).every((value) => value === 0) && stats['offers filled']! > 0
  return { ok, broken, stats }
}
