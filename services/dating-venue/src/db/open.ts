import { fileURLToPath } from 'node:url'
import { type Database, openDatabase } from '@agents/service-kit/db'
import { type Schema, schema } from './schema.ts'

export type VenueDatabase = Database<Schema>

/** drizzle-kit's output: the venue's schema, migration by migration. */
export const VENUE_MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** PostgreSQL when `url` is set, else PGlite in `dataDir`; migrated before it is returned. */
export const openVenueDatabase = (parameters: {
  url?: string | undefined
  dataDir?: string
  poolMax?: number
}) => openDatabase({ ...parameters, schema, migrationsFolder: VENUE_MIGRATIONS_FOLDER })
