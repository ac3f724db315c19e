export type ReadUpstreamAnswerReturnType =
  | { ok: true; body: unknown }
  | { ok: false; reason: 'upstream_unavailable'; details: string }

/**
 * Sorts an upstream's whole answer into the buyer's business (2xx, other
 * 4xx: parsed JSON passed through) and the seller's (401/403 on the seller's
 * key, 5xx, redirects, a body holding the key, not JSON).
 *
 * @example readUpstreamAnswer({ status: 429, text: '{"error":{}}', apiKey })
 */
export const readUpstreamAnswer = ({
  status,
  text,
  apiKey,
}: {
  status: number
  text: string
  apiKey: string
}): ReadUpstreamAnswerReturnType => {
  const unavailable = (details: string) =>
    ({ ok: false, reason: 'upstream_unavailable', details }) as const
  // OpenAI's 401 echoes a masked key; the seller's credentials are no business of the buyer's.
  if (status === 401 || status === 403)
    return unavailable(`upstream refused the seller key (${status})`)
  if (status >= 500 || status < 200 || (status >= 300 && status < 400))
    return unavailable(`upstream answered ${status}`)
  if (text.includes(apiKey)) return unavailable('upstream answer contains the seller key')
  try {
    return { ok: true, body: JSON.parse(text) }
  } catch {
    return unavailable(`upstream answered ${status} with a body that is not JSON`)
  }
}
