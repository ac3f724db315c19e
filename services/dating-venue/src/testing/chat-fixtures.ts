import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { siweSignIn } from './siwe-sign-in.ts'

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
  const signedIn = await siweSignIn(venueUrl, {
    noncePath: '/api/chat/session/nonce',
    sessionPath: '/api/chat/session',
    account,
  })
  if (signedIn.status !== 200) throw new Error(`chat sign-in answered ${signedIn.status}`)
  const { cookie } = signedIn
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${venueUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  if (attest) await post('/api/chat/attest', { adult: true }, { cookie })
  return { cookie, wallet: account.address.toLowerCase() }
}
