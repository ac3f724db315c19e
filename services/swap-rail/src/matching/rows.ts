import type { IntentRow, MatchRow, OfferRow } from '../db/schema.ts'

// Raw SQL results differ by driver (pg returns int8 as strings, PGlite as
// numbers or bigints; JSON timestamps are strings): read them one way here.
type Raw = Record<string, unknown>
const big = (value: unknown) => BigInt(value as string | number | bigint)
const num = (value: unknown) => Number(value)
const date = (value: unknown) => (value instanceof Date ? value : new Date(value as string))
const maybeDate = (value: unknown) => (value == null ? null : date(value))

export const offerFromRaw = (row: Raw): OfferRow => ({
  id: row.id as string,
  seq: num(row.seq),
  endpoint: row.endpoint as string,
  payTo: row.pay_to as string,
  model: row.model as string,
  mtok: num(row.mtok),
  remainingMtok: num(row.remaining_mtok),
  priceAtomic: big(row.price_atomic),
  feeBps: num(row.fee_bps),
  splitAddress: row.split_address as string,
  feeRecipient: (row.fee_recipient as string | null) ?? null,
  clientKey: (row.client_key as string | null) ?? null,
  status: row.status as OfferRow['status'],
  createdAt: date(row.created_at),
  expiresAt: date(row.expires_at),
  closedAt: maybeDate(row.closed_at),
})

export const intentFromRaw = (row: Raw): IntentRow => ({
  id: row.id as string,
  seq: num(row.seq),
  model: row.model as string,
  mtok: num(row.mtok),
  maxPriceAtomic: big(row.max_price_atomic),
  buyer: (row.buyer as string | null) ?? null,
  clientKey: (row.client_key as string | null) ?? null,
  status: row.status as IntentRow['status'],
  createdAt: date(row.created_at),
  expiresAt: date(row.expires_at),
})

export const matchFromRaw = (row: Raw): MatchRow => ({
  id: row.id as string,
  intentId: row.intent_id as string,
  offerId: row.offer_id as string,
  mtok: num(row.mtok),
  unitPriceAtomic: big(row.unit_price_atomic),
  grossAtomic: big(row.gross_atomic),
  feeBps: num(row.fee_bps),
  splitAddress: row.split_address as string,
  status: row.status as MatchRow['status'],
  createdAt: date(row.created_at),
  payBy: date(row.pay_by),
  settlingReference: (row.settling_reference as string | null) ?? null,
  clientKey: (row.client_key as string | null) ?? null,
  paidAt: maybeDate(row.paid_at),
  payment: (row.payment as unknown) ?? null,
})
