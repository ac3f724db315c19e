import { type Hex, hexToBytes, toHex } from 'viem'

/** Byte offset of the salt in the CREATE2 preimage 0xff ++ deployer ++ salt ++ initCodeHash. */
const SALT_OFFSET = 21
/** The counter sits at salt bytes 3..10 = preimage bytes 24..31 = Keccak lane 3, aligned. */
export const COUNTER_SALT_OFFSET = 3
const RATE_BYTES = 136

/** The padded single Keccak block (keccak256 padding: 0x01 ... 0x80) for one seed salt. */
export const buildPreimageBlock = ({
  deployer,
  initCodeHash,
  seedSalt,
}: {
  deployer: Hex
  initCodeHash: Hex
  seedSalt: Uint8Array
}): Uint8Array => {
  const block = new Uint8Array(RATE_BYTES)
  block[0] = 0xff
  block.set(hexToBytes(deployer), 1)
  block.set(seedSalt, SALT_OFFSET)
  block.set(hexToBytes(initCodeHash), SALT_OFFSET + 32)
  block[85]! ^= 0x01
  block[RATE_BYTES - 1]! ^= 0x80
  return block
}

/** The counter's starting value: the seed's own bytes at the counter's place. */
export const startCounter = (seedSalt: Uint8Array): bigint =>
  new DataView(seedSalt.buffer, seedSalt.byteOffset, 32).getBigUint64(COUNTER_SALT_OFFSET, true)

/** The salt of candidate `index`: the seed with counter `start + index` written in. */
export const saltAt = (seedSalt: Uint8Array, index: number): Hex => {
  const salt = seedSalt.slice()
  const counter = BigInt.asUintN(64, startCounter(seedSalt) + BigInt(index))
  new DataView(salt.buffer).setBigUint64(COUNTER_SALT_OFFSET, counter, true)
  return toHex(salt)
}
