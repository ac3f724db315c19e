// `@agents/dating-venue/bench`: the internals the benchmarks in bench/dating-venue
// measure directly (the beat, the pairing, the floor, the limits, the chat
// answer's proxy) and the fixtures they seed with. Tests and the server do not use it.

export { beatOnce } from './beat/beat.ts'
export { allowedCompiledPair, allowedPair, compileFilter } from './beat/filters.ts'
export { pairApproximate, pairCandidates, pairExact } from './beat/pairing.ts'
export type { PairingStats } from './beat/pairing-engine.ts'
export type { PairingCandidate } from './beat/pairing-matrix.ts'
export { personas, personaVectors, posts } from './db/schema.ts'
export { startFakeEmbeddings } from './fake-embeddings.ts'
export { readFloor } from './floor/read-floor.ts'
export type { Heart, Prefs } from './heart/heart-schema.ts'
export { VENUE_LIMIT_DEFAULTS } from './limits/limit-defaults.ts'
export { postJson } from './openai-api/post-json.ts'
export { grantCredits } from './orders/credits.ts'
export { signInToChat } from './testing/chat-fixtures.ts'
export { startChatStandIn } from './testing/chat-stand-in.ts'
export { ownerWithDoc } from './testing/intake-fixtures.ts'
export { VENUE_COUNTING } from './venue-counting.ts'
