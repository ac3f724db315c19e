/** Stable codes of draft_intent errors and warnings; clients switch on these. */
export const IntentCode = {
  padUnknown: 'pad_unknown',
  padUnproven: 'pad_unproven',
  chainInvalid: 'chain_invalid',
  chainNotListed: 'chain_not_listed',
  forbiddenStockPair: 'forbidden_stock_pair',
  stockUnknown: 'stock_unknown',
  saltForbidden: 'salt_forbidden',
  forbiddenField: 'forbidden_field',
  knobInvalid: 'knob_invalid',
  knobIgnored: 'knob_ignored',
  creatorInvalid: 'creator_invalid',
  nameInvalid: 'name_invalid',
  symbolInvalid: 'symbol_invalid',
} as const
export type IntentCode = (typeof IntentCode)[keyof typeof IntentCode]

/** One error or warning: `field` is a dotted path inside the intent ("" for the whole intent). */
export type IntentIssue = { code: IntentCode; field: string; message: string }
