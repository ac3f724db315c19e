/**
 * Uniswap v4-core's integer arithmetic that decides whether a position fits a
 * pool, as v4-core 1.0.2 (the PoolManager the chain tests run) computes it.
 */

export const UINT128_MAX = 2n ** 128n - 1n
export const MAX_TICK = 887272

// v4-core TickMath.getSqrtPriceAtTick's constants: 2^128 / sqrt(1.0001^(2^i)), i = 1..19.
const RATIOS = [
  0xfff97272373d413259a46990580e213an,
  0xfff2e50f5f656932ef12357cf3c7fdccn,
  0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n,
  0xff973b41fa98c081472e6896dfb254c0n,
  0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n,
  0xfcbe86c7900a88aedcffc83b479aa3a4n,
  0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n,
  0xe7159475a2c29b7443b29c7fa6e889d9n,
  0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n,
  0x70d869a156d2a1b890bb3df62baf32f7n,
  0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n,
  0x5d6af8dedb81196699c329225ee604n,
  0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
]
const UINT256_MAX = 2n ** 256n - 1n

/** v4-core `TickMath.getSqrtPriceAtTick`, bit for bit (Q64.96, rounded up). */
export const sqrtPriceAtTick = (tick: number): bigint => {
  const abs = Math.abs(tick)
  if (!Number.isInteger(tick) || abs > MAX_TICK) throw new RangeError(`InvalidTick(${tick})`)
  let price = abs & 1 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n
  for (const [index, ratio] of RATIOS.entries())
    if (abs & (2 << index)) price = (price * ratio) >> 128n
  if (tick > 0) price = UINT256_MAX / price
  return (price + 0xffffffffn) >> 32n
}

/**
 * v4-core `Pool.tickSpacingToMaxLiquidityPerTick`: uint128's range shared by
 * every usable tick, the lowest counted from one spacing below MIN_TICK when
 * MIN_TICK is not a multiple (v4-core 1.0.2 src/libraries/Pool.sol lines 565-583).
 */
export const maxLiquidityPerTick = (spacing: number): bigint => {
  const minTick = Math.trunc(-MAX_TICK / spacing) - (-MAX_TICK % spacing < 0 ? 1 : 0)
  const maxTick = Math.trunc(MAX_TICK / spacing)
  return UINT128_MAX / BigInt(maxTick - minTick + 1)
}
