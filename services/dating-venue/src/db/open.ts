import { fileURLToPath } from 'node:url'
import { type Database, type OpenDatabaseParameters, openDatabase } from '@agents/service-kit/db'
import { type Schema, schema } from './schema.ts'

export type VenueDatabase = Database<Schema>

/** drizzle-kit's output: the venue's schema, migration by migration. */
export const VENUE_MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** PostgreSQL when `url` is set (pooled as `poolMode` says), else PGlite in `dataDir`; migrated before it is returned. */
export const openVenueDatabase = (
  parameters: Omit<OpenDatabaseParameters<Schema>, 'schema' | 'migrationsFolder'>,
) => openDatabase({ ...parameters, schema, migrationsFolder: VENUE_MIGRATIONS_FOLDER })
