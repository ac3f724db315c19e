import { lane, piTarget, rotationOffsets, roundConstants } from './keccak-constants.ts'

/**
 * Generates the WebAssembly text of the CREATE2 salt miner.
 *
 * The preimage `0xff ++ deployer ++ salt ++ initCodeHash` is 85 bytes: one
 * Keccak block of 17 lanes. The caller lays the padded block out in memory at
 * offset 0; the salt's counter occupies lane 3 (preimage bytes 24..31, salt
 * bytes 3..10), the only lane that changes between candidates. So:
 *  - round 0's theta, rho and pi for the 14 lanes that do not depend on lane 3
 *    are computed once per call, before the loop;
 *  - the last round computes only output lane 3 (address bytes 12..19), which
 *    is all a mask rule looks at;
 *  - the permutation is unrolled over locals: no memory traffic, no
 *    allocation, no bounds checks in the loop.
 *
 * Exports:
 *  - `mine(start, count, mask, value) -> i32`: the first i in [0, count) whose
 *    output lane 3 with counter `start + i` satisfies `(lane & mask) == value`, or -1;
 *  - `mine2(...)`: the same, two candidates per pass in the two i64 lanes of
 *    a v128 (wasm SIMD), which keeps more of the core's execution units busy;
 *  - `digest(counter)`: the full 32-byte hash for one counter, written at offset 256.
 */
export const keccakMinerWat = (): string => `(module
  (memory (export "memory") 1)
  ${mineFunction('mine', scalar)}
  ${mineFunction('mine2', simd)}
  ${digestFunction()}
)`

/** How one lane-wide value is written: a scalar i64, or two candidates in an i64x2. */
type Ops = {
  type: 'i64' | 'v128'
  width: 1 | 2
  xor: (left: string, right: string) => string
  /** Rotation of a local (SIMD has no rotate: two shifts and an or, so keep operands simple). */
  rotl: (local: string, by: number) => string
  andNot: (notThis: string, andThis: string) => string
  constant: (value: bigint) => string
  loadLane: (index: number) => string
}

const i64 = (value: bigint) => BigInt.asIntN(64, value).toString()
const get = (name: string) => `(local.get $${name})`
const set = (name: string, expression: string) => `(local.set $${name} ${expression})`
const memoryLane = (index: number) => `(i64.load offset=${8 * index} (i32.const 0))`

const scalar: Ops = {
  type: 'i64',
  width: 1,
  xor: (left, right) => `(i64.xor ${left} ${right})`,
  rotl: (local, by) => (by === 0 ? local : `(i64.rotl ${local} (i64.const ${by}))`),
  andNot: (notThis, andThis) => `(i64.and (i64.xor ${notThis} (i64.const -1)) ${andThis})`,
  constant: (value) => `(i64.const ${i64(value)})`,
  loadLane: memoryLane,
}

const simd: Ops = {
  type: 'v128',
  width: 2,
  xor: (left, right) => `(v128.xor ${left} ${right})`,
  rotl: (local, by) =>
    by === 0
      ? local
      : `(v128.or (i64x2.shl ${local} (i32.const ${by})) (i64x2.shr_u ${local} (i32.const ${64 - by})))`,
  // v128.andnot(a, b) is a & ~b.
  andNot: (notThis, andThis) => `(v128.andnot ${andThis} ${notThis})`,
  constant: (value) => `(v128.const i64x2 ${i64(value)} ${i64(value)})`,
  loadLane: (index) => `(i64x2.splat ${memoryLane(index)})`,
}

const column = (x: number) => [0, 1, 2, 3, 4].map((y) => lane(x, y))
const range = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`)
const declare = (names: string[], type: string) =>
  names.map((name) => `(local $${name} ${type})`).join(' ')
const STATE = [...range('a', 25), ...range('b', 25), ...range('c', 5), ...range('d', 5)]

const xorAll = (ops: Ops, terms: string[]) => terms.reduce((left, right) => ops.xor(left, right))

const theta = (ops: Ops, source: (index: number) => string) => [
  ...[0, 1, 2, 3, 4].map((x) => set(`c${x}`, xorAll(ops, column(x).map(source)))),
  ...[0, 1, 2, 3, 4].map((x) =>
    set(`d${x}`, ops.xor(get(`c${(x + 4) % 5}`), ops.rotl(get(`c${(x + 1) % 5}`), 1))),
  ),
]

/** rho and pi for lane (x, y): B[pi(x, y)] = rotl(A[x, y] ^ D[x], r). */
const rhoPi = (ops: Ops, x: number, y: number, source: (index: number) => string, target = 'b') => {
  const name = `${target}${piTarget(x, y)}`
  const by = rotationOffsets[lane(x, y)]!
  return [
    set(name, ops.xor(source(lane(x, y)), get(`d${x}`))),
    ...(by === 0 ? [] : [set(name, ops.rotl(get(name), by))]),
  ]
}

const chiLane = (ops: Ops, x: number, y: number, b: (index: number) => string) =>
  ops.xor(b(lane(x, y)), ops.andNot(b(lane(x + 1, y)), b(lane(x + 2, y))))

const chiIota = (ops: Ops, round: number, b: (index: number) => string) => {
  const lines: string[] = []
  for (let y = 0; y < 5; y++)
    for (let x = 0; x < 5; x++) lines.push(set(`a${lane(x, y)}`, chiLane(ops, x, y, b)))
  lines.push(set('a0', ops.xor(get('a0'), ops.constant(roundConstants[round]!))))
  return lines
}

const fullRound = (ops: Ops, round: number) => {
  const lines = theta(ops, (index) => get(`a${index}`))
  for (let y = 0; y < 5; y++)
    for (let x = 0; x < 5; x++) lines.push(...rhoPi(ops, x, y, (index) => get(`a${index}`)))
  return [...lines, ...chiIota(ops, round, (index) => get(`b${index}`))]
}

// Round 0, split: lane 3 varies, so column 3's parity and D2, D4 vary, and
// so do the lanes of columns 2 and 4 and lane 3 itself after theta.
const varies = (x: number, y: number) => x === 2 || x === 4 || lane(x, y) === 3
const KEPT_INPUTS = [0, 1, 2, 3, 4].flatMap((y) => [lane(2, y), lane(4, y)])
const FIXED_B = (() => {
  const fixed: number[] = []
  for (let y = 0; y < 5; y++)
    for (let x = 0; x < 5; x++) if (!varies(x, y)) fixed.push(piTarget(x, y))
  return fixed
})()

const mineFunction = (name: string, ops: Ops) => {
  const preamble = [
    ...Array.from({ length: 25 }, (_, index) =>
      index === 3 ? '' : set(`a${index}`, ops.loadLane(index)),
    ),
    set(
      'c3p',
      xorAll(
        ops,
        column(3)
          .filter((index) => index !== 3)
          .map((index) => get(`a${index}`)),
      ),
    ),
    ...[0, 1, 2, 4].map((x) =>
      set(
        `c${x}`,
        xorAll(
          ops,
          column(x).map((index) => get(`a${index}`)),
        ),
      ),
    ),
    ...[0, 1, 3].map((x) =>
      set(`d${x}`, ops.xor(get(`c${(x + 4) % 5}`), ops.rotl(get(`c${(x + 1) % 5}`), 1))),
    ),
  ]
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++)
      if (!varies(x, y)) preamble.push(...rhoPi(ops, x, y, (index) => get(`a${index}`), 'k'))
  }
  // Later rounds overwrite a*, c* and d*: keep what round 0 reads in the loop aside.
  preamble.push(...KEPT_INPUTS.map((index) => set(`s${index}`, get(`a${index}`))))
  preamble.push(set('c0p', get('c0')), set('c1p', get('c1')), set('d3p', get('d3')))

  const counter = `(i64.add ${get('start')} (i64.extend_i32_u ${get('i')}))`
  const firstRound = [
    ops.width === 1
      ? set('a3', counter)
      : set(
          'a3',
          `(i64x2.replace_lane 1 (i64x2.splat ${counter}) (i64.add ${counter} (i64.const 1)))`,
        ),
    set('c3', ops.xor(get('c3p'), get('a3'))),
    set('d2', ops.xor(get('c1p'), ops.rotl(get('c3'), 1))),
    set('d4', ops.xor(get('c3'), ops.rotl(get('c0p'), 1))),
    set('d3', get('d3p')),
  ]
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 5; x++) {
      if (varies(x, y))
        firstRound.push(
          ...rhoPi(ops, x, y, (index) => (index === 3 ? get('a3') : get(`s${index}`))),
        )
    }
  }
  const fixed = new Set(FIXED_B)
  firstRound.push(...chiIota(ops, 0, (index) => get(fixed.has(index) ? `k${index}` : `b${index}`)))

  // Last round: output lane 3 = B3 ^ (~B4 & B0) of row 0, where row 0 of B is
  // the rotated diagonal A[i][i] ^ D[i].
  const lastRound = [
    ...theta(ops, (index) => get(`a${index}`)),
    ...[0, 3, 4].flatMap((i) => rhoPi(ops, i, i, (index) => get(`a${index}`))),
    set(
      'out',
      chiLane(ops, 3, 0, (index) => get(`b${index}`)),
    ),
  ]

  const matches = (laneValue: string) =>
    `(i64.eq (i64.and ${laneValue} ${get('mask')}) ${get('value')})`
  const check =
    ops.width === 1
      ? [`(if ${matches(get('out'))} (then (return ${get('i')})))`]
      : [
          `(if ${matches(`(i64x2.extract_lane 0 ${get('out')})`)} (then (return ${get('i')})))`,
          // The second candidate only counts inside the range.
          `(if (i32.and (i32.lt_u (i32.add ${get('i')} (i32.const 1)) ${get('count')}) ${matches(`(i64x2.extract_lane 1 ${get('out')})`)}) (then (return (i32.add ${get('i')} (i32.const 1)))))`,
        ]

  const body = [
    `(if (i32.eqz ${get('count')}) (then (return (i32.const -1))))`,
    ...preamble,
    '(block $done (loop $next',
    ...firstRound,
    ...Array.from({ length: 22 }, (_, k) => fullRound(ops, k + 1)).flat(),
    ...lastRound,
    ...check,
    set('i', `(i32.add ${get('i')} (i32.const ${ops.width}))`),
    `(br_if $next (i32.lt_u ${get('i')} ${get('count')}))`,
    '))',
    '(i32.const -1)',
  ]
  const locals = [
    ...STATE,
    'c0p',
    'c1p',
    'c3p',
    'd3p',
    'out',
    ...FIXED_B.map((i) => `k${i}`),
    ...KEPT_INPUTS.map((i) => `s${i}`),
  ]
  return `(func (export "${name}") (param $start i64) (param $count i32) (param $mask i64) (param $value i64) (result i32)
    (local $i i32) ${declare(locals, ops.type)}
    ${body.join('\n    ')})`
}

const digestFunction = () => {
  const body = [
    ...Array.from({ length: 25 }, (_, index) =>
      set(`a${index}`, index === 3 ? get('counter') : memoryLane(index)),
    ),
    ...Array.from({ length: 24 }, (_, round) => fullRound(scalar, round)).flat(),
    ...[0, 1, 2, 3].map(
      (index) => `(i64.store offset=${256 + 8 * index} (i32.const 0) ${get(`a${index}`)})`,
    ),
  ]
  return `(func (export "digest") (param $counter i64)
    ${declare(STATE, 'i64')}
    ${body.join('\n    ')})`
}
