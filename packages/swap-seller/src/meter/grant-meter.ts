/**
 * Token accounting per match. A grant can be re-read from the hub (new
 * `jti`, new `exp`) while its match is redeemable, so every method is keyed
 * by the match id, never by the grant.
 *
 * `exclusive` is what keeps concurrent requests of one match from both
 * spending the last tokens: the proxy checks, forwards and records inside it.
 * A seller running several replicas implements it with a shared lock (a
 * PostgreSQL advisory lock, a Redis lease) over a shared counter.
 */
export type GrantMeter = {
  /** Tokens the match may still use under `limitTokens`; never negative. */
  remaining(matchId: string, limitTokens: number): Promise<number>
  /** Adds `tokens` (a non-negative integer) to what the match has used. */
  record(matchId: string, tokens: number): Promise<void>
  /** Runs `task` after every earlier task of the same match has settled. */
  exclusive<result>(matchId: string, task: () => Promise<result>): Promise<result>
}
