export { type AnyTransaction, runExclusive } from './advisory-lock.ts'
export {
  type Database,
  type OpenDatabaseParameters,
  openDatabase,
  type SqlClient,
} from './open-database.ts'
export { createTestDatabase, type TestBackend, testBackends } from './test-database.ts'
