import { randomBytes } from 'node:crypto'

/**
 * A fresh nonce and the headers of a page that runs one inline script of
 * its own (the claim page, the chat page, the console): only that script
 * runs (CSP nonce), it talks only to this origin, nothing frames the page,
 * no referrer leaves it, and no cache keeps it.
 */
export const scriptPage = () => {
  const nonce = randomBytes(16).toString('base64')
  return {
    nonce,
    headers: {
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    },
  }
}
