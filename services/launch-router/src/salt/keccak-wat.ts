import { lane, piTarget, rotationOffsets, roundConstants } from './keccak-constants.ts'

/**
 * Generates the WebAssembly text of the CREATE2 salt miner.
 *
 * The preimage `0xff ++ deployer ++ salt ++ initCodeHash` is 85 bytes: one
 * Keccak block of 17 lanes. The caller lays the padded block out in memory at
 * offset 0; the salt's counter occupies lane 3 (preimage bytes 24..31, salt
 * bytes 3..10), the only lane that changes between candidates. So:
 *  - round 0's theta, rho and pi for the 14 lanes that do not depend on lane 3
 *    are computed once, before the loop;
 *  - the last round computes only output lane 3 (address bytes 12..19), which
 *    is all a mask rule looks at;
 *  - the whole permutation is unrolled over locals: no memory traffic, no
 *    allocation, no bounds checks in the loop.
 *
 * Exports:
 *  - `mine(start, count, mask, value) -> i32`: the first i in [0, count) whose
 *    output lane 3 with counter `start + i` satisfies `(lane & mask) == value`, or -1;
 *  - `digest(counter)`: the full 32-byte hash for one counter, written at offset 256.
 */
export const keccakMinerWat = (): string => {
  const get = (name: string) => `(local.get $${name})`
  const set = (name: string, expression: string) => `(local.set $${name} ${expression})`
  const xor = (...terms: string[]) => terms.reduce((left, right) => `(i64.xor ${left} ${right})`)
  const rotl = (expression: string, by: number) =>
    by === 0 ? expression : `(i64.rotl ${expression} (i64.const ${by}))`
  const andNot = (notThis: string, andThis: string) =>
    `(i64.and (i64.xor ${notThis} (i64.const -1)) ${andThis})`
  const constant = (value: bigint) => `(i64.const ${BigInt.asIntN(64, value)})`
  const column = (x: number) => [0, 1, 2, 3, 4].map((y) => lane(x, y))

  const theta = (source: (index: number) => string) => [
    ...[0, 1, 2, 3, 4].map((x) => set(`c${x}`, xor(...column(x).map(source)))),
    ...[0, 1, 2, 3, 4].map((x) =>
      set(`d${x}`, xor(get(`c${(x + 4) % 5}`), rotl(get(`c${(x + 1) % 5}`), 1))),
    ),
  ]
  const rhoPi = (x: number, y: number, source: (index: number) => string) =>
    set(
      `b${piTarget(x, y)}`,
      rotl(xor(source(lane(x, y)), get(`d${x}`)), rotationOffsets[lane(x, y)]!),
    )
  const chiLane = (x: number, y: number, b: (index: number) => string) =>
    xor(b(lane(x, y)), andNot(b(lane(x + 1, y)), b(lane(x + 2, y))))
  const chiIota = (round: number, b: (index: number) => string) => {
    const lines: string[] = []
    for (let y = 0; y < 5; y++)
      for (let x = 0; x < 5; x++) lines.push(set(`a${lane(x, y)}`, chiLane(x, y, b)))
    lines.push(set('a0', xor(get('a0'), constant(roundConstants[round]!))))
    return lines
  }
  const fullRound = (round: number) => {
    const lines = theta((index) => get(`a${index}`))
    for (let y = 0; y < 5; y++)
      for (let x = 0; x < 5; x++) lines.push(rhoPi(x, y, (index) => get(`a${index}`)))
    return [...lines, ...chiIota(round, (index) => get(`b${index}`))]
  }

  // Round 0, split: lane 3 varies, so column 3's parity and D2, D4 vary, and
  // so do the lanes of columns 2 and 4 and lane 3 itself after theta.
  const varies = (x: number, y: number) => x === 2 || x === 4 || lane(x, y) === 3
  const loadLane = (index: number) => `(i64.load offset=${8 * index} (i32.const 0))`
  const preamble = [
    ...Array.from({ length: 25 }, (_, index) =>
      index === 3 ? '' : set(`a${index}`, loadLane(index)),
    ),
    set(
      'c3p',
      xor(
        ...column(3)
          .filter((index) => index !== 3)
          .map((index) => get(`a${index}`)),
      ),
    ),
    ...[0, 1, 2, 4].map((x) => set(`c${x}`, xor(...column(x).map((index) => get(`a${index}`))))),
    ...[0, 1, 3].map((x) =>
      set(`d${x}`, xor(get(`c${(x + 4) % 5}`), rotl(get(`c${(x + 1) % 5}`), 1))),
    ),
  ]
  const fixedB = new Set<number>()
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      if (varies(x, y)) continue
      const target = piTarget(x, y)
      fixedB.add(target)
      preamble.push(
        set(
          `k${target}`,
          rotl(xor(get(`a${lane(x, y)}`), get(`d${x}`)), rotationOffsets[lane(x, y)]!),
        ),
      )
    }
  }
  // Later rounds overwrite a* and c*, so keep what round 0 reads in the loop aside.
  const keptInputs = [0, 1, 2, 3, 4].flatMap((y) => [lane(2, y), lane(4, y)])
  preamble.push(...keptInputs.map((index) => set(`s${index}`, get(`a${index}`))))
  preamble.push(set('c0p', get('c0')), set('c1p', get('c1')), set('d3p', get('d3')))

  const firstRound = [
    set('a3', `(i64.add ${get('start')} (i64.extend_i32_u ${get('i')}))`),
    set('c3', xor(get('c3p'), get('a3'))),
    set('d2', xor(get('c1p'), rotl(get('c3'), 1))),
    set('d4', xor(get('c3'), rotl(get('c0p'), 1))),
    set('d3', get('d3p')),
  ]
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      if (!varies(x, y)) continue
      firstRound.push(rhoPi(x, y, (index) => (index === 3 ? get('a3') : get(`s${index}`))))
    }
  }
  firstRound.push(...chiIota(0, (index) => get(fixedB.has(index) ? `k${index}` : `b${index}`)))

  // Last round: output lane 3 = B3 ^ (~B4 & B0) of row 0, where row 0 of B is
  // the rotated diagonal A[i][i] ^ D[i].
  const lastRound = [
    ...theta((index) => get(`a${index}`)),
    ...[0, 3, 4].map((i) => rhoPi(i, i, (index) => get(`a${index}`))),
    set(
      'out',
      chiLane(3, 0, (index) => get(`b${index}`)),
    ),
  ]

  const mineBody = [
    ...preamble,
    '(block $done (loop $next',
    ...firstRound,
    ...Array.from({ length: 22 }, (_, k) => fullRound(k + 1)).flat(),
    ...lastRound,
    `(if (i64.eq (i64.and ${get('out')} ${get('mask')}) ${get('value')}) (then (return ${get('i')})))`,
    set('i', `(i32.add ${get('i')} (i32.const 1))`),
    `(br_if $next (i32.lt_u ${get('i')} ${get('count')}))`,
    '))',
    '(i32.const -1)',
  ]

  const digestBody = [
    ...Array.from({ length: 25 }, (_, index) =>
      set(`a${index}`, index === 3 ? get('counter') : loadLane(index)),
    ),
    ...Array.from({ length: 24 }, (_, round) => fullRound(round)).flat(),
    ...[0, 1, 2, 3].map(
      (index) => `(i64.store offset=${256 + 8 * index} (i32.const 0) ${get(`a${index}`)})`,
    ),
  ]

  const i64Locals = (names: string[]) => names.map((name) => `(local $${name} i64)`).join(' ')
  const range = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, index) => `${prefix}${index}`)
  const stateLocals = [...range('a', 25), ...range('b', 25), ...range('c', 5), ...range('d', 5)]

  return `(module
  (memory (export "memory") 1)
  (func (export "mine") (param $start i64) (param $count i32) (param $mask i64) (param $value i64) (result i32)
    (local $i i32) ${i64Locals([...stateLocals, 'c0p', 'c1p', 'c3p', 'd3p', 'out', ...[...fixedB].map((index) => `k${index}`), ...keptInputs.map((index) => `s${index}`)])}
    ${mineBody.join('\n    ')})
  (func (export "digest") (param $counter i64)
    ${i64Locals(stateLocals)}
    ${digestBody.join('\n    ')})
)`
}
