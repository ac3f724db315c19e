export { type AnyTransaction, runExclusive } from './advisory-lock.ts'
export { isUniqueViolation } from './is-unique-violation.ts'
export {
  type Database,
  type OpenDatabaseParameters,
  openDatabase,
  type PoolMode,
  type SqlClient,
} from './open-database.ts'
export { pgArray } from './pg-array.ts'
export { UnpreparedClient } from './pool-clients.ts'
export { preparedOnce } from './prepared-once.ts'
export { PreparingPglite } from './preparing-pglite.ts'
export { rowsOf } from './rows-of.ts'
export {
  createTestDatabase,
  type TestBackend,
  type TestDatabaseOptions,
  testBackends,
  throughPooler,
} from './test-database.ts'
export {
  createTransactionGuard,
  QueryOutsideTransactionError,
  type TransactionGuard,
} from './transaction-guard.ts'
