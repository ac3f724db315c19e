import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Extra fields a spec names beside `error` (for example `issues`, `reason`, `errors`). */
export type ErrorExtras = Record<string, unknown>

/**
 * The one HTTP error every service throws. `onError` writes it as
 * `{ "error": message, ...extras }` with its status.
 *
 * @example throw new ApiError(404, 'pad not found', { pad: 'nope' })
 */
export class ApiError extends HTTPException {
  override readonly name = 'ApiError'
  readonly extras: ErrorExtras
  /** Response headers that go with the error (`Retry-After`, `RateLimit`). */
  readonly headers: Record<string, string>

  constructor(
    status: ContentfulStatusCode,
    message: string,
    extras: ErrorExtras = {},
    headers: Record<string, string> = {},
  ) {
    super(status, { message })
    this.extras = extras
    this.headers = headers
  }
}

/** Builds the wire shape of an error body: `{ error, ...extras }`. */
export const errorBody = (message: string, extras: ErrorExtras = {}) => ({
  ...extras,
  error: message,
})
