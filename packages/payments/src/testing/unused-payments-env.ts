/**
 * Payment settings for a test of a paid service that never pays: the
 * service starts and answers 402s, but nothing listens at the facilitator
 * URL (port 9, discard), so a payment attempt fails as "facilitator down".
 */
export const UNUSED_PAYMENTS_ENV = {
  PAYMENTS_DEVNET: '1',
  PAYMENTS_FACILITATOR_URL: 'http://127.0.0.1:9',
  PAYMENTS_PAY_TO: '0x3aA62bAb8c47716eE13421d0620C9FC9740A5A62',
} as const
