/** What the human chat surface answers when it refuses. */
export const CHAT_ERRORS = {
  invalidSignIn: 'invalid sign-in',
  signInFailed: 'sign-in failed',
  unknownNonce: 'unknown, expired or used nonce: ask for a new one',
  signInRequired: 'sign in with your wallet first',
  attestationRequired: 'attest that you are 18 or older first',
  invalidAttestation: 'invalid attestation',
  crossSite: 'cross-site request refused',
} as const
