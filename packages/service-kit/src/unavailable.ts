// SQLSTATE classes of a database that cannot serve now: connection exceptions (08),
// shutting down or starting up (57P01-57P03), too many connections (53300).
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/
const UNAVAILABLE_SOCKET = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
])
// node-postgres reports a lost connection in words only.
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Connection ended)/

/**
 * True when an error (or any error it wraps) says a dependency such as the
 * database could not be reached, rather than that the request or the code
 * is wrong: the answer is a retryable 503, not a 500.
 */
export const isUnavailable = (error: unknown): boolean => {
  for (let at = error, depth = 0; at && depth < 5; depth++) {
    const { code, message, cause } = at as { code?: unknown; message?: unknown; cause?: unknown }
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))
    )
      return true
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true
    at = cause
  }
  return false
}
