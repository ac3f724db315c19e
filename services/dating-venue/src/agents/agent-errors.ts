/** What the agent endpoint routes answer when they refuse. */
export const AGENT_ERRORS = {
  invalidAgent: 'invalid agent',
  invalidVerify: 'invalid verify',
  bindingWhat: 'binding an endpoint to an owner or persona',
  notThisOwner: 'credential does not act for this owner',
  notThisPersona: 'credential does not act for this persona',
} as const

/** The `reason` and `detail` of a 422 `{ active: false }`. */
export const VERIFY_REFUSALS = {
  unknownEndpoint: 'unknown endpoint',
  notSatisfied: 'challenge not satisfied',
  nonceExpired: 'the challenge nonce expired: register the endpoint again',
  noPublicKey: 'no publicKey registered for a signature proof',
  wrongSigner: 'signature is not by the registered key',
  echoMismatch: 'echoToken does not equal the nonce',
  callbackFailed: (reason: string) => `callback failed: ${reason}`,
  noEcho: 'the callback did not echo the challenge',
  noProof: 'send a signature or an echoToken',
} as const
