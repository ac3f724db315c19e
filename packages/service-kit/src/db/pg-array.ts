/**
 * A PostgreSQL array literal for one bound parameter (`${pgArray(ids)}::int[]`):
 * drizzle would spread a JavaScript array into one parameter per item, and
 * bulk statements (thousands of rows) want one parameter per column.
 * Strings are quoted and escaped, so any text is safe.
 */
export const pgArray = (values: readonly (number | string)[]) =>
  `{${values
    .map((value) =>
      typeof value === 'number' ? String(value) : `"${value.replace(/(["\\])/g, '\\$1')}"`,
    )
    .join(',')}}`
