import { getAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expect, test } from 'vitest'
import { createLoginVerifier } from '../identity/login-token.ts'
import { signSiweLogin } from '../identity/testing/sign-siwe-login.ts'
import { decodeSiweAuthToken, encodeSiweAuthToken } from './siwe-auth-token.ts'
import { verifySiweToken } from './verify-siwe-token.ts'

const domain = 'venue.example'
const verify = createLoginVerifier({ issuers: [], siweDomain: domain })
const minutes = (n: number) => new Date(Date.now() + n * 60_000)

const reasonOf = async (authToken: string, nonce?: string) => {
  const result = await verify(authToken, { nonce })
  return result.ok ? 'accepted' : result.reason
}

test('default', async () => {
  const privateKey = generatePrivateKey()
  const { authToken, address } = await signSiweLogin({ domain, privateKey })
  expect(address).toBe(privateKeyToAccount(privateKey).address)
  expect(await verify(authToken)).toEqual({
    ok: true,
    subject: `siwe:${getAddress(address)}`,
    issuer: 'siwe',
    method: 'siwe',
    address: getAddress(address),
  })
})

test('behavior: a message without a statement', async () => {
  const { authToken, message } = await signSiweLogin({ domain, fields: { statement: undefined } })
  expect(message).toContain('\n\n\nURI: ')
  expect(await reasonOf(authToken)).toBe('accepted')
})

test('behavior: the token round-trips and never looks like a JWT', async () => {
  const { authToken, message } = await signSiweLogin({ domain })
  expect(authToken).toMatch(/^[A-Za-z0-9_-]+$/)
  expect(decodeSiweAuthToken(authToken)?.message).toBe(message)
  expect(decodeSiweAuthToken('not+base64url')).toBeUndefined()
})

test('behavior: wrong domain', async () => {
  const { authToken } = await signSiweLogin({ domain: 'phishing.example' })
  expect(await reasonOf(authToken)).toBe('wrong domain')
})

test('behavior: the domain compares case-insensitively', async () => {
  const { authToken } = await signSiweLogin({ domain: 'Venue.Example' })
  expect(await reasonOf(authToken)).toBe('accepted')
})

test('behavior: expired', async () => {
  const { authToken } = await signSiweLogin({
    domain,
    fields: { issuedAt: minutes(-5), expirationTime: minutes(-2) },
  })
  expect(await reasonOf(authToken)).toBe('expired')
})

test('behavior: issued too long ago', async () => {
  const { authToken } = await signSiweLogin({ domain, fields: { issuedAt: minutes(-11) } })
  expect(await reasonOf(authToken)).toBe('expired')
})

test('behavior: not yet valid', async () => {
  const later = await signSiweLogin({ domain, fields: { notBefore: minutes(5) } })
  const future = await signSiweLogin({ domain, fields: { issuedAt: minutes(5) } })
  expect(await reasonOf(later.authToken)).toBe('not yet valid')
  expect(await reasonOf(future.authToken)).toBe('not yet valid')
})

test('behavior: bad signature', async () => {
  const { authToken } = await signSiweLogin({ domain })
  const { message } = decodeSiweAuthToken(authToken)!
  const otherKey = privateKeyToAccount(generatePrivateKey())
  const forged = encodeSiweAuthToken({
    message,
    signature: await otherKey.signMessage({ message }),
  })
  expect(await reasonOf(forged)).toBe('bad signature')

  const tampered = encodeSiweAuthToken({
    message: message.replace('Sign in to the venue', 'Sign in to the vault'),
    signature: decodeSiweAuthToken(authToken)!.signature,
  })
  expect(await reasonOf(tampered)).toBe('bad signature')
  const junk = encodeSiweAuthToken({ message, signature: '0x1234' })
  expect(await reasonOf(junk)).toBe('bad signature')
})

test('behavior: an expected nonce must match', async () => {
  const { authToken } = await signSiweLogin({ domain, fields: { nonce: 'inviteabc123' } })
  expect(await reasonOf(authToken, 'inviteabc123')).toBe('accepted')
  expect(await reasonOf(authToken, 'otherinvite9')).toBe('wrong nonce')
})

test('behavior: a message that is not EIP-4361', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const message = 'hello, let me in'
  const token = encodeSiweAuthToken({ message, signature: await account.signMessage({ message }) })
  expect(await reasonOf(token)).toBe('malformed')
})

test('behavior: a URI off the origin, another chain, another version, a bad checksum', async () => {
  const origin = 'https://venue.example'
  const reason = async (authToken: string) => {
    const result = await verifySiweToken({ authToken, domain, origin })
    return result.ok ? 'accepted' : result.reason
  }
  expect(await reason((await signSiweLogin({ domain })).authToken)).toBe('accepted')
  const elsewhere = await signSiweLogin({ domain, fields: { uri: 'https://evil.example/claim' } })
  expect(await reason(elsewhere.authToken)).toBe('wrong uri')
  // Without an origin the URI's host must be the domain.
  expect(await reasonOf(elsewhere.authToken)).toBe('wrong uri')
  const mainnet = await signSiweLogin({ domain, fields: { chainId: 1 } })
  expect(await reason(mainnet.authToken)).toBe('wrong chain')
  const resign = async (edit: (message: string) => string) => {
    const privateKey = generatePrivateKey()
    const { message } = await signSiweLogin({ domain, privateKey })
    const edited = edit(message)
    const signature = await privateKeyToAccount(privateKey).signMessage({ message: edited })
    return encodeSiweAuthToken({ message: edited, signature })
  }
  expect(await reason(await resign((m) => m.replace('Version: 1', 'Version: 2')))).toBe(
    'unsupported version',
  )
  const badChecksum = (m: string) =>
    m.replace(/0x[0-9a-fA-F]{40}/, (address) =>
      address.replace(/[a-f]/, (letter) => letter.toUpperCase()),
    )
  expect(await reason(await resign(badChecksum))).toBe('bad address')
  // Text the parser does not read is refused: the venue verifies the whole message.
  expect(await reason(await resign((m) => `${m}\nBonus: 1000 USDC`))).toBe('malformed')
  expect(await reason(await resign((m) => m.replace('\nURI:', '\nSee below\nURI:')))).toBe(
    'malformed',
  )
})

test('behavior: a nonce is spent only by a message that passed every other check', async () => {
  const spent: string[] = []
  const useNonce = async (nonce: string) => {
    if (spent.includes(nonce)) return false
    spent.push(nonce)
    return true
  }
  const { authToken } = await signSiweLogin({ domain })
  const wrongDomain = await signSiweLogin({ domain: 'phishing.example' })
  expect(await verifySiweToken({ authToken: wrongDomain.authToken, domain, useNonce })).toEqual({
    ok: false,
    reason: 'wrong domain',
  })
  expect(spent).toEqual([])
  expect(await verifySiweToken({ authToken, domain, useNonce })).toMatchObject({ ok: true })
  expect(await verifySiweToken({ authToken, domain, useNonce })).toEqual({
    ok: false,
    reason: 'unknown or used nonce',
  })
})

test('behavior: SIWE off means an unknown issuer', async () => {
  const jwtOnly = createLoginVerifier({ issuers: [] })
  const { authToken } = await signSiweLogin({ domain })
  expect(await jwtOnly(authToken)).toEqual({ ok: false, reason: 'unknown issuer' })
})

test('behavior: a fixed clock', async () => {
  const { authToken } = await signSiweLogin({ domain, fields: { issuedAt: new Date(0) } })
  expect(await verifySiweToken({ authToken, domain, now: 60_000 })).toMatchObject({ ok: true })
  expect(await verifySiweToken({ authToken, domain, now: 700_000 })).toEqual({
    ok: false,
    reason: 'expired',
  })
})
