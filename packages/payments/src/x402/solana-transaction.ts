import { createHash } from 'node:crypto'
import {
  type Address,
  getAddressDecoder,
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isOffCurveAddress,
} from '@solana/kit'

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'
const TRANSFER_CHECKED = 12

/** The one token transfer of an x402 `exact` Solana transaction, as signed. */
export type SolanaTransfer = {
  /** The transaction's fee payer (its first account). */
  feePayer: string
  tokenProgram: string
  mint: string
  /** The token account credited. */
  destination: string
  authority: string
  amount: bigint
}

const addresses = { encoder: getAddressEncoder(), decoder: getAddressDecoder() }

/**
 * The associated token account of `owner` for `mint` (the PDA of
 * [owner, token program, mint] under the associated token program), computed
 * without a network call.
 */
export const associatedTokenAccount = (owner: string, mint: string, tokenProgram: string) => {
  const seeds = [owner, tokenProgram, mint].map((address) =>
    Uint8Array.from(addresses.encoder.encode(address as Address)),
  )
  const program = Uint8Array.from(addresses.encoder.encode(ASSOCIATED_TOKEN_PROGRAM as Address))
  for (let bump = 255; bump >= 0; bump--) {
    const hash = createHash('sha256')
    for (const seed of seeds) hash.update(seed)
    hash.update(Uint8Array.of(bump)).update(program).update('ProgramDerivedAddress')
    const candidate = addresses.decoder.decode(hash.digest())
    if (isOffCurveAddress(candidate)) return candidate as string
  }
  throw new Error('no associated token account address')
}

/**
 * Reads the fee payer and the single `TransferChecked` (Token or Token-2022)
 * of a base64 wire transaction; a string says why it cannot be read.
 * Address lookup tables are refused: their accounts cannot be known offline.
 */
export const readSolanaTransfer = (base64: string): SolanaTransfer | string => {
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>
  try {
    const transaction = getTransactionDecoder().decode(Buffer.from(base64, 'base64'))
    message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
  } catch {
    return 'payload.transaction is not a Solana transaction'
  }
  const lookups = 'addressTableLookups' in message ? message.addressTableLookups : undefined
  if (lookups && lookups.length > 0) return 'the transaction uses address lookup tables'
  const accounts = message.staticAccounts as readonly string[]
  const feePayer = accounts[0]
  if (!feePayer) return 'the transaction has no fee payer'
  const transfers = message.instructions.filter((instruction) => {
    const program = accounts[instruction.programAddressIndex]
    return (
      (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) &&
      instruction.data?.[0] === TRANSFER_CHECKED
    )
  })
  if (transfers.length !== 1) return 'the transaction must hold exactly one token transfer'
  const transfer = transfers[0]!
  const [source, mint, destination, authority] = (transfer.accountIndices ?? []).map(
    (index) => accounts[index],
  )
  const data = transfer.data!
  if (!source || !mint || !destination || !authority || data.length < 10)
    return 'the token transfer is incomplete'
  return {
    feePayer,
    tokenProgram: accounts[transfer.programAddressIndex]!,
    mint,
    destination,
    authority,
    amount: Buffer.from(data.subarray(1, 9)).readBigUInt64LE(0),
  }
}
