import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage } from 'viem/siwe'

/**
 * Signs a wallet in to the chat page's API as the page does (nonce, EIP-4361
 * message, personal_sign) and, by default, attests 18+: the session cookie
 * to send, and the wallet.
 */
export const signInToChat = async (
  venueUrl: string,
  {
    account = privateKeyToAccount(generatePrivateKey()),
    attest = true,
  }: { account?: PrivateKeyAccount; attest?: boolean } = {},
) => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${venueUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  const nonce = (await (await post('/api/chat/session/nonce', {})).json()) as {
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
  const signedIn = await post('/api/chat/session', {
    message,
    signature: await account.signMessage({ message }),
  })
  if (signedIn.status !== 200) throw new Error(`chat sign-in answered ${signedIn.status}`)
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!
  if (attest) await post('/api/chat/attest', { adult: true }, { cookie })
  return { cookie, wallet: account.address.toLowerCase() }
}
