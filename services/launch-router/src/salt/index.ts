export {
  type MinedSalt,
  type MineSaltParameters,
  type MineSaltResult,
  mineSalt,
} from './mine-salt.ts'
export { createMinerPool, type MinerPool } from './miner-pool.ts'
export { addressSatisfies, SaltRule } from './salt-rule.ts'
