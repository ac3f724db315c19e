import type { Matrix } from '../matrix/load-matrix.ts'
import type { ChainId } from '../matrix/pad.ts'

/** The union of the chains the pads list, nothing added: EVM ids ascending, then CAIP-2 ids. */
export const listNetworks = (matrix: Matrix) => {
  const chains = [...new Set<ChainId>(matrix.pads.flatMap((pad) => pad.chains))]
  const evm = chains
    .filter((chain): chain is number => typeof chain === 'number')
    .sort((a, b) => a - b)
  const other = chains.filter((chain): chain is string => typeof chain === 'string').sort()
  return {
    chains: [...evm, ...other],
    networks: [...evm, ...other].map((chainId) => ({
      chainId,
      pads: matrix.pads.filter((pad) => pad.chains.includes(chainId)).map((pad) => pad.id),
    })),
  }
}
