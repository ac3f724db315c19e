import { z } from '@hono/zod-openapi'

/** The largest value of a PostgreSQL `integer` (int4) column, which `serial` ids are. */
export const ROW_ID_MAX = 2_147_483_647

/**
 * A row id in a JSON body: an integer an int4 column can hold, 1 to 2^31 - 1.
 * Larger ids name no row; refused here they are a 400, not a driver error.
 *
 * @example const ReportBody = z.object({ targetId: RowId })
 */
export const RowId = z.number().int().min(1).max(ROW_ID_MAX)

/**
 * A row id from a path or a query string, coerced from its text, with the
 * same bounds as `RowId`.
 *
 * @example const CoupleParams = z.object({ id: RowIdParam })
 */
export const RowIdParam = z.coerce.number().int().min(1).max(ROW_ID_MAX)
