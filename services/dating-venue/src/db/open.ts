import { fileURLToPath } from 'node:url'
import { type Database, openDatabase } from '@agents/service-kit/db'
import { type Schema, schema } from './schema.ts'

export type VenueDatabase = Database<Schema>

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** PostgreSQL when `url` is set, else PGlite in `dataDir`; migrated before it is returned. */
export const openVenueDatabase = (parameters: {
  url?: string | undefined
  dataDir?: string
  poolMax?: number
}) => openDatabase({ ...parameters, schema, migrationsFolder })
