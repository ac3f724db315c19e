/** A grant's `mtok` counts millions of tokens. */
export const TOKENS_PER_MTOK = 1_000_000

/** Response header: tokens the match has left after this call. */
export const TOKENS_REMAINING_HEADER = 'x-grant-tokens-remaining'
