import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'

/**
 * Signs a wallet in as the venue's pages do (the chat page, the console):
 * a one-time nonce from `noncePath`, an EIP-4361 message naming the fields
 * it gives, `personal_sign`, then `sessionPath`. The answer, the session
 * cookie to send back (`name=value`), and the raw Set-Cookie header.
 */
export const siweSignIn = async (
  venueUrl: string,
  {
    noncePath,
    sessionPath,
    account = privateKeyToAccount(generatePrivateKey()),
  }: { noncePath: string; sessionPath: string; account?: PrivateKeyAccount },
) => {
  const post = (path: string, body: unknown) =>
    fetch(`${venueUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const nonce = (await (await post(noncePath, {})).json()) as {
    nonce: string
    domain: string
    uri: string
  }
  const message = createSiweMessage({
    domain: nonce.domain,
    address: account.address,
    uri: nonce.uri,
    version: '1',
    chainId: 8453,
    nonce: nonce.nonce,
    issuedAt: new Date(),
  })
  const response = await post(sessionPath, {
    message,
    signature: await account.signMessage({ message }),
  })
  const setCookie = response.headers.get('set-cookie') ?? ''
  return {
    status: response.status,
    // biome-ignore lint/suspicious/noExplicitAny: tests read the answer by path
    json: (await response.json()) as any,
    cookie: setCookie.split(';')[0]!,
    setCookie,
    account,
  }
}

/** The console's sign-in for `account` (an operator wallet, or not). */
export const signInToConsole = (venueUrl: string, account?: PrivateKeyAccount) =>
  siweSignIn(venueUrl, {
    noncePath: '/api/operator/session/nonce',
    sessionPath: '/api/operator/session',
    ...(account ? { account } : {}),
  })
