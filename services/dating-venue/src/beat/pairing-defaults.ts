/**
 * Candidates a beat pairs by exact search at most, by default: where exact
 * search and the graph cost the same (measured in `pairCandidates`). The
 * setting's default (VENUE_MATCH_EXACT_UP_TO), the pool's and the pairing's.
 */
export const EXACT_UP_TO = 2500
