import {
  BTC_BASE58,
  BTC_BECH32,
  EVM_ADDRESS,
  NAME_SERVICE,
  SOLANA_BASE58,
  WALLET_CUE,
  WALLET_CUE_WINDOW,
} from './personal-data-patterns.ts'

/**
 * True when the text carries a crypto address: EVM (0x + 40 hex), Bitcoin
 * (bech32, or base58 starting 1/3), ENS/SNS names (`*.eth`, `*.sol`), or a
 * Solana-style base58 string of 32-44 characters.
 *
 * `plain` keeps case (base58 is case-sensitive); `lower` has spelled dots rewritten.
 */
export const findWallet = (plain: string, lower: string): boolean => {
  if (EVM_ADDRESS.test(lower) || BTC_BECH32.test(lower) || NAME_SERVICE.test(lower)) return true
  for (const [candidate] of plain.matchAll(BTC_BASE58)) if (hasMixedCase(candidate)) return true
  for (const match of plain.matchAll(SOLANA_BASE58)) {
    const candidate = match[0]
    // A key mixes upper, lower and digits. A lowercase run is a keyboard mash
    // ("hahahahahahaha..."); with only one of case or digits, a nearby wallet word
    // ("sol", "wallet", "send") has to say what it is.
    if (hasMixedCase(candidate) && /\d/.test(candidate)) return true
    if (!/\d/.test(candidate) && !hasMixedCase(candidate)) continue
    const from = Math.max(0, match.index - WALLET_CUE_WINDOW)
    const window = plain
      .slice(from, match.index + candidate.length + WALLET_CUE_WINDOW)
      .toLowerCase()
    if (WALLET_CUE.test(window)) return true
  }
  return false
}

const hasMixedCase = (text: string): boolean => /[a-z]/.test(text) && /[A-Z]/.test(text)
