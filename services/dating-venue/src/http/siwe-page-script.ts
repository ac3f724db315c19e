/**
 * Browser code (inlined in a page's nonce'd script) that signs the
 * browser's wallet in with Sign-In with Ethereum: a one-time nonce from
 * `noncePath`, the EIP-4361 message with the fields it gives, EIP-1193
 * `personal_sign`, then `sessionPath`. Resolves to `{ status, body }` of the
 * session route; throws when the wallet refuses or there is none. The chat
 * page and the console use it.
 */
export const siweSignInScript = `
const signInWithWallet = async (noncePath, sessionPath) => {
  if (!window.ethereum) throw new Error('No wallet found in this browser.');
  const postJson = (path, body) => fetch(path, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
  }).then(async (response) => ({ status: response.status, body: await response.json().catch(() => ({})) }));
  const [address] = await window.ethereum.request({ method: 'eth_requestAccounts' });
  const nonce = (await postJson(noncePath)).body;
  const message = [
    nonce.domain + ' wants you to sign in with your Ethereum account:',
    address, '', nonce.statement, '',
    'URI: ' + nonce.uri, 'Version: 1', 'Chain ID: ' + nonce.chainId,
    'Nonce: ' + nonce.nonce, 'Issued At: ' + new Date().toISOString(),
  ].join('\\n');
  const hex = '0x' + Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, '0')).join('');
  const signature = await window.ethereum.request({ method: 'personal_sign', params: [hex, address] });
  return postJson(sessionPath, { message, signature });
};
`
