import { getAddress, isAddress, isAddressEqual, recoverMessageAddress } from 'viem'
import { parseSiweMessage } from 'viem/siwe'
import { LOGIN_FAILURES, type LoginFailure } from './login-failures.ts'
import type { LoginVerification } from './login-verification.ts'
import { decodeSiweAuthToken } from './siwe-auth-token.ts'

export type VerifySiweTokenParameters = {
  authToken: string
  /** The domain (host[:port]) the message must name: VENUE_LOGIN_SIWE_DOMAIN. */
  domain: string
  /** Milliseconds since the epoch. */
  now?: number
  clockToleranceSeconds?: number
  /** How old `Issued At` may be: SIWE has no `exp` of its own unless the wallet adds one. */
  maxAgeSeconds?: number
  /** When the caller issued a nonce (e.g. the invite token without dashes), the one to expect. */
  nonce?: string | undefined
}

const fail = (reason: LoginFailure): LoginVerification => ({ ok: false, reason })

/**
 * Checks a Sign-In with Ethereum `authToken` offline: the EIP-4361 message
 * names our domain, is inside its time window, and its signature recovers
 * to the message's address. Only externally owned accounts verify this way;
 * smart-contract wallets (EIP-1271/6492) would need a chain call and fail
 * as `bad signature`.
 *
 * @example
 * const login = await verifySiweToken({ authToken, domain: 'venue.example' })
 * if (login.ok) console.log(login.subject) // siwe:0xAbC...
 */
export const verifySiweToken = async ({
  authToken,
  domain,
  now = Date.now(),
  clockToleranceSeconds = 30,
  maxAgeSeconds = 600,
  nonce,
}: VerifySiweTokenParameters): Promise<LoginVerification> => {
  const token = decodeSiweAuthToken(authToken)
  if (!token) return fail(LOGIN_FAILURES.malformed)
  const message = parseSiweMessage(token.message)
  const { address, issuedAt, expirationTime, notBefore } = message
  const complete =
    message.domain &&
    address &&
    isAddress(address, { strict: false }) &&
    message.uri &&
    message.version === '1' &&
    Number.isSafeInteger(message.chainId) &&
    message.nonce &&
    /^[A-Za-z0-9]{8,}$/.test(message.nonce) && // EIP-4361: at least 8 alphanumerics
    issuedAt &&
    !Number.isNaN(issuedAt.getTime()) &&
    !(expirationTime && Number.isNaN(expirationTime.getTime())) &&
    !(notBefore && Number.isNaN(notBefore.getTime()))
  if (!complete || !address || !issuedAt) return fail(LOGIN_FAILURES.malformed)

  // Host names compare case-insensitively; the port, if any, must match exactly.
  if (message.domain?.toLowerCase() !== domain.toLowerCase())
    return fail(LOGIN_FAILURES.wrongDomain)
  if (nonce !== undefined && message.nonce !== nonce) return fail(LOGIN_FAILURES.wrongNonce)

  const tolerance = clockToleranceSeconds * 1000
  if (expirationTime && now - tolerance >= expirationTime.getTime())
    return fail(LOGIN_FAILURES.expired)
  if (notBefore && now + tolerance < notBefore.getTime()) return fail(LOGIN_FAILURES.notYetValid)
  if (issuedAt.getTime() > now + tolerance) return fail(LOGIN_FAILURES.notYetValid)
  if (now - issuedAt.getTime() > maxAgeSeconds * 1000 + tolerance)
    return fail(LOGIN_FAILURES.expired)

  try {
    const signer = await recoverMessageAddress({
      message: token.message,
      signature: token.signature as `0x${string}`,
    })
    if (!isAddressEqual(signer, address)) throw new Error('signer is not the message address')
  } catch {
    return fail(LOGIN_FAILURES.badSignature)
  }
  const checksummed = getAddress(address)
  return {
    ok: true,
    subject: `siwe:${checksummed}`,
    issuer: 'siwe',
    method: 'siwe',
    address: checksummed,
  }
}
