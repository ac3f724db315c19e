import initWabt from 'wabt'
import { keccakMinerWat } from './keccak-wat.ts'

let compiled: Promise<WebAssembly.Module> | undefined

/**
 * Assembles the generated miner once per process. The module is built from
 * this repository's source by `wabt` (an npm package): nothing prebuilt is
 * fetched or committed. Worker threads receive the compiled module.
 */
export const compileMiner = (): Promise<WebAssembly.Module> => {
  compiled ??= (async () => {
    const wabt = await initWabt()
    const parsed = wabt.parseWat('keccak-miner.wat', keccakMinerWat())
    try {
      const { buffer } = parsed.toBinary({})
      return await WebAssembly.compile(new Uint8Array(buffer))
    } finally {
      parsed.destroy()
    }
  })()
  return compiled
}
