/**
 * A drizzle prepared query built once per database (or transaction) it runs
 * on: the query builder's work, 0.1 to 0.3 ms of CPU a query on these
 * machines (bench/README.md), is done once instead of on every call. Give
 * each query a name of its own: PostgreSQL prepares it by that name on each
 * connection.
 *
 * @example
 * const ownerById = preparedOnce((db: Db) =>
 *   db.select().from(owners).where(eq(owners.id, sql.placeholder('id'))).prepare('owner_by_id'),
 * )
 * const [owner] = await ownerById(database.db).execute({ id })
 */
export const preparedOnce = <executor extends object, query>(
  build: (executor: executor) => query,
) => {
  const built = new WeakMap<executor, query>()
  return (executor: executor): query => {
    let query = built.get(executor)
    if (!query) {
      query = build(executor)
      built.set(executor, query)
    }
    return query
  }
}
