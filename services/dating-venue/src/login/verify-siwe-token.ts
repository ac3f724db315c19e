import { getAddress, isAddress, verifyMessage } from 'viem'
import { parseSiweMessage } from 'viem/siwe'
import { LOGIN_FAILURES, type LoginFailure } from './login-failures.ts'
import type { LoginVerification } from './login-verification.ts'
import { decodeSiweAuthToken } from './siwe-auth-token.ts'

/**
 * The chain a venue SIWE message names: Base (`eip155:8453`), where the
 * venue's x402 rail, the chat page's top-up and the studio token holding
 * are. The nonce routes hand it out; a message naming any other chain
 * (Ethereum mainnet's 1, a testnet) was not made for this venue.
 */
export const SIWE_CHAIN_ID = 8453

export type VerifySiweTokenParameters = {
  authToken: string
  /** The domain (host[:port]) the message must name: VENUE_LOGIN_SIWE_DOMAIN. */
  domain: string
  /**
   * The origin (`scheme://host[:port]`) the message's URI must be on: the
   * venue's. Without it the URI's host must be `domain`.
   */
  origin?: string | undefined
  /** The chains a message may name; `[SIWE_CHAIN_ID]` by default. */
  chainIds?: readonly number[]
  /** Milliseconds since the epoch. */
  now?: number
  /** Clock skew allowed on every time in the message, either way. */
  clockToleranceSeconds?: number
  /** How old `Issued At` may be: SIWE has no `exp` of its own unless the wallet adds one. */
  maxAgeSeconds?: number
  /** When the caller expects one nonce in particular, that nonce. */
  nonce?: string | undefined
  /**
   * Takes the message's nonce for good: true when this venue issued it and
   * nobody used it. Called last, for a message that passed every other
   * check, so a forged or stale message never spends a nonce.
   */
  useNonce?: ((nonce: string) => Promise<boolean>) | undefined
}

const fail = (reason: LoginFailure): LoginVerification => ({ ok: false, reason })

const validDate = (date: Date | undefined) => date === undefined || !Number.isNaN(date.getTime())

type SiweFields = ReturnType<typeof parseSiweMessage>

/**
 * Each line an EIP-4361 message of these fields has: its whole text, or
 * (the times, which viem turned into dates) its label. viem's parser finds
 * the fields by pattern; holding every line of the message to them means
 * nothing was signed that the venue did not read: no text before, between
 * or after the fields.
 */
const expectedLines = (fields: SiweFields): Array<{ is: string } | { label: string }> => [
  {
    is: `${fields.scheme ? `${fields.scheme}://` : ''}${fields.domain} wants you to sign in with your Ethereum account:`,
  },
  { is: `${fields.address}` },
  { is: '' },
  // EIP-4361's ABNF: the statement line is optional, the empty lines around it are not.
  ...(fields.statement ? [{ is: fields.statement }] : []),
  { is: '' },
  { is: `URI: ${fields.uri}` },
  { is: `Version: ${fields.version}` },
  { is: `Chain ID: ${fields.chainId}` },
  { is: `Nonce: ${fields.nonce}` },
  { label: 'Issued At: ' },
  ...(fields.expirationTime ? [{ label: 'Expiration Time: ' }] : []),
  ...(fields.notBefore ? [{ label: 'Not Before: ' }] : []),
  ...(fields.requestId ? [{ is: `Request ID: ${fields.requestId}` }] : []),
  ...(fields.resources
    ? [{ is: 'Resources:' }, ...fields.resources.map((url) => ({ is: `- ${url}` }))]
    : []),
]

const isWhole = (message: string, fields: SiweFields) => {
  const lines = message.split('\n')
  const expected = expectedLines(fields)
  return (
    lines.length === expected.length &&
    expected.every((line, index) =>
      'is' in line ? lines[index] === line.is : lines[index]!.startsWith(line.label),
    )
  )
}

/** The URI's origin, or undefined when it is not a URL. */
const originOf = (uri: string) => {
  try {
    return new URL(uri).origin
  } catch {
    return undefined
  }
}

/**
 * Checks a Sign-In with Ethereum `authToken` field by field, each with its
 * own reason: the EIP-4361 message is whole (every line one viem's parser
 * read), is version 1, names a well-formed address, our domain, a URI on our
 * origin and our chain, is inside its time window (with the clock
 * tolerance), is signed by its address, and (with `useNonce`) carries a
 * nonce we issued, spent here. Only externally owned accounts verify: the
 * venue holds no chain client for smart-contract wallets (EIP-1271/6492),
 * which fail as `bad signature`.
 *
 * @example
 * const login = await verifySiweToken({ authToken, domain: 'venue.example', origin: 'https://venue.example' })
 * if (login.ok) console.log(login.subject) // siwe:0xAbC...
 */
export const verifySiweToken = async ({
  authToken,
  domain,
  origin,
  chainIds = [SIWE_CHAIN_ID],
  now = Date.now(),
  clockToleranceSeconds = 30,
  maxAgeSeconds = 600,
  nonce,
  useNonce,
}: VerifySiweTokenParameters): Promise<LoginVerification> => {
  const token = decodeSiweAuthToken(authToken)
  if (!token) return fail(LOGIN_FAILURES.malformed)
  const fields = parseSiweMessage(token.message)
  const { address, uri, version, chainId, issuedAt, expirationTime, notBefore } = fields
  const complete =
    fields.domain &&
    address &&
    uri &&
    version &&
    chainId !== undefined &&
    Number.isSafeInteger(chainId) &&
    fields.nonce &&
    /^[A-Za-z0-9]{8,}$/.test(fields.nonce) && // EIP-4361: at least 8 alphanumerics
    issuedAt &&
    validDate(issuedAt) &&
    validDate(expirationTime) &&
    validDate(notBefore) &&
    isWhole(token.message, fields)
  if (!complete || !address || !uri || !issuedAt || chainId === undefined)
    return fail(LOGIN_FAILURES.malformed)

  if (version !== '1') return fail(LOGIN_FAILURES.unsupportedVersion)
  // EIP-55: lower case carries no checksum; mixed case must carry the right one.
  if (!isAddress(address, { strict: true })) return fail(LOGIN_FAILURES.badAddress)
  // Host names compare case-insensitively; the port, if any, must match exactly.
  if (fields.domain?.toLowerCase() !== domain.toLowerCase()) return fail(LOGIN_FAILURES.wrongDomain)
  if (origin && fields.scheme && `${fields.scheme.toLowerCase()}:` !== new URL(origin).protocol)
    return fail(LOGIN_FAILURES.wrongDomain)
  const uriOrigin = originOf(uri)
  const uriFits = origin
    ? uriOrigin === new URL(origin).origin
    : uriOrigin !== undefined && new URL(uri).host === domain.toLowerCase()
  if (!uriFits) return fail(LOGIN_FAILURES.wrongUri)
  if (!chainIds.includes(chainId)) return fail(LOGIN_FAILURES.wrongChain)
  if (nonce !== undefined && fields.nonce !== nonce) return fail(LOGIN_FAILURES.wrongNonce)

  const tolerance = clockToleranceSeconds * 1000
  if (expirationTime && now - tolerance >= expirationTime.getTime())
    return fail(LOGIN_FAILURES.expired)
  if (notBefore && now + tolerance < notBefore.getTime()) return fail(LOGIN_FAILURES.notYetValid)
  if (issuedAt.getTime() > now + tolerance) return fail(LOGIN_FAILURES.notYetValid)
  if (now - issuedAt.getTime() > maxAgeSeconds * 1000 + tolerance)
    return fail(LOGIN_FAILURES.expired)

  const signed = await verifyMessage({
    address,
    message: token.message,
    signature: token.signature as `0x${string}`,
  }).catch(() => false)
  if (!signed) return fail(LOGIN_FAILURES.badSignature)

  if (useNonce && !(await useNonce(fields.nonce!))) return fail(LOGIN_FAILURES.unknownNonce)
  const checksummed = getAddress(address)
  return {
    ok: true,
    subject: `siwe:${checksummed}`,
    issuer: 'siwe',
    method: 'siwe',
    address: checksummed,
  }
}
