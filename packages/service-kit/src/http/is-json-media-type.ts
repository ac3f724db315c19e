// The media types service-kit's jsonRoute accepts: application/json and any +json suffix type.
const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * Whether a Content-Type header names JSON (`application/json`, or a `+json`
 * type such as `application/merge-patch+json`), parameters ignored.
 *
 * @example isJsonMediaType('application/json; charset=utf-8') // true
 * @example isJsonMediaType('text/plain') // false
 */
export const isJsonMediaType = (contentType: string | undefined): boolean =>
  JSON_MEDIA_TYPE.test((contentType ?? '').split(';')[0]!.trim())
