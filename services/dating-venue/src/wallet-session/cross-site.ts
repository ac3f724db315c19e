import { ApiError } from '@agents/service-kit'
import type { Context } from 'hono'
import { CHAT_ERRORS } from './chat-errors.ts'

/**
 * The venue's CSRF rule for its cookie sessions (the chat page's and the
 * console's), the one check every state-changing route of theirs makes: a
 * request other than GET that names another `Origin` than the venue's is
 * 403. No `Origin` passes (a script, or an older browser's same-origin
 * request): the cookies are SameSite=Strict, and every such POST takes JSON
 * only (415 otherwise), which no cross-site form can send.
 */
export const refuseCrossSite = (c: Context, venueOrigin: string) => {
  const origin = c.req.header('origin')
  if (c.req.method !== 'GET' && origin !== undefined && origin !== venueOrigin)
    throw new ApiError(403, CHAT_ERRORS.crossSite)
}
