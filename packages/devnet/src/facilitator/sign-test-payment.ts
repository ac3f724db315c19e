import { x402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import type { Devnet } from '../start-devnet.ts'

/** What a resource server sends the facilitator's `/verify` and `/settle`. */
export type SettleBody = {
  x402Version: 2
  paymentPayload: PaymentPayload
  paymentRequirements: PaymentRequirements
}

/**
 * A fresh x402 v2 `exact` payment (a new EIP-3009 nonce) of `amount` atomic
 * USDC from the devnet's payer to its payee, signed by the official client:
 * for the facilitator's own tests.
 */
export const signTestPayment = async (devnet: Devnet, amount: bigint): Promise<SettleBody> => {
  const paymentRequirements: PaymentRequirements = {
    scheme: 'exact',
    network: 'eip155:8453',
    amount: amount.toString(),
    asset: devnet.base.usdc,
    payTo: devnet.accounts.payee,
    maxTimeoutSeconds: 60,
    extra: { name: 'USD Coin', version: '2' },
  }
  const client = new x402Client()
  registerExactEvmScheme(client, {
    signer: toClientEvmSigner(devnet.accounts.payer, devnet.base.publicClient),
    networks: ['eip155:8453'],
  })
  const paymentPayload = await client.createPaymentPayload({
    x402Version: 2,
    resource: {
      url: 'http://127.0.0.1/paid',
      description: 'facilitator test',
      mimeType: 'text/plain',
    },
    accepts: [paymentRequirements],
  })
  return { x402Version: 2, paymentPayload, paymentRequirements }
}
