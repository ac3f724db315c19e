// `@agents/devnet/bench`: the pieces of the devnet the payments benchmarks run
// on their own (a facilitator in its own process against a given chain).
export { defineBaseDevnet } from './chains/start-base-chain.ts'
export { startFacilitator } from './facilitator/start-facilitator.ts'
