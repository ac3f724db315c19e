/**
 * What erasing an owner does to the tables one module writes: `deleted` (the
 * owner's rows go) or `anonymized` (they stay, naming neither the owner, its
 * personas nor its wallets). Each one-writer module exports its part beside
 * the functions that do it; erasure runs them in its one transaction, and
 * erasure/erasure-coverage.test.ts holds every table of the migrated schema
 * with an owner, persona or wallet column against these declarations.
 */
export type ErasedTables = Readonly<Record<string, 'deleted' | 'anonymized'>>
