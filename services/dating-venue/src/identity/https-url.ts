import { z } from 'zod'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * An operator-configured URL that carries secrets or keys: https, or http
 * only on a loopback host (local stand-ins in tests and development).
 */
export const HttpsOrLoopbackUrl = z.url().refine((value) => {
  const url = new URL(value)
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))
}, 'expected an https URL (http only on localhost)')
