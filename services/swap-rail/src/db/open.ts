import { fileURLToPath } from 'node:url'
import { type Database, type OpenDatabaseParameters, openDatabase } from '@agents/service-kit/db'
import { type Schema, schema } from './schema.ts'

export type SwapDatabase = Database<Schema>

/** drizzle-kit's output: the rail's schema, migration by migration. */
export const SWAP_MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url))

/** PostgreSQL when `url` is set (pooled as `poolMode` says), else PGlite in `dataDir`; migrated before it is returned. */
export const openSwapDatabase = (
  parameters: Omit<OpenDatabaseParameters<Schema>, 'schema' | 'migrationsFolder'>,
) => openDatabase({ ...parameters, schema, migrationsFolder: SWAP_MIGRATIONS_FOLDER })
