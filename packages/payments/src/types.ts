/** A CAIP-2 network id, e.g. `eip155:8453`. */
export type Network = `${string}:${string}`

/** One x402 way to pay: a network, its USDC, and the default payee. */
export type X402Rail = {
  network: Network
  asset: string
  payTo: string
  /** EIP-712 domain of the asset (EVM), echoed in `extra` so clients can sign. */
  extra?: Record<string, unknown>
  maxTimeoutSeconds?: number
}

/** What one request costs and who is paid. */
export type Price = {
  /** USDC atomic units (6 decimals). */
  amount: bigint
  /** Overrides the rail's payee for this request (the swap rail pays a per-match split). */
  payTo?: string
  /** MPP: the recipient's share split out to others (push mode). */
  splits?: Array<{ recipient: `0x${string}`; amount: bigint }>
}

export type Resource = {
  /**
   * The resource's absolute http(s) URL, built on the service's configured
   * base URL (`resourceUrl(deps.baseUrl(), path)`), never on the request's
   * `Host`: a relative one is refused (`ResourceUrlError`). The legacy v1
   * body names its path.
   */
  url: string
  description: string
  mimeType?: string
  /** Legacy v1 only: what the paid answer looks like. */
  outputSchema?: Record<string, unknown>
}

export type PaymentReceipt = {
  rail: 'x402' | 'mpp'
  /** x402Version for x402; undefined for MPP. */
  version?: 1 | 2
  network: string
  payer: string
  amount: string
  /** On-chain transaction hash (x402 settle, MPP push); '' if a recovered settlement's log was not found. */
  transaction: string
  /** The reference that may not be used again. */
  reference: string
  /** The rail's receipt header as first sent (MPP's `Payment-Receipt`), so a retry gets the same. */
  header?: [string, string]
}
