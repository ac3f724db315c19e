import { spawnAnvil } from '@agents/devnet'
import fc from 'fast-check'
import {
  type Address,
  bytesToHex,
  concat,
  createTestClient,
  getAddress,
  getContractAddress,
  type Hex,
  hexToBigInt,
  http,
  keccak256,
  publicActions,
  stringToHex,
  walletActions,
  zeroAddress,
  zeroHash,
} from 'viem'
import { describe, expect, test } from 'vitest'
import {
  PUSH_SPLIT_FACTORY_V2o2,
  PUSH_SPLIT_V2o2_IMPLEMENTATION,
  type Split,
  splitAddress,
  splitFor,
  splitShares,
} from './split-address.ts'

const seller: Address = '0x3aa62bAb8c47716eE13421d0620C9FC9740A5a62'
const seller2: Address = '0xDc1b8a4D022E59aF876af30A00240a726a28F420'
const hub: Address = '0xC1FbA134Be2D9c2EBe7a0F58224b00f9200C7f52'
const owner: Address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

/**
 * Clone.sol's `initCodeHash`, replayed literally: the same `mstore`s into scratch memory, then
 * `keccak256(0x0f, 0x71)`. Written from the upstream assembly, apart from `splitAddress`.
 */
const cloneInitCodeFromAssembly = (implementation: Address) => {
  const memory = new Uint8Array(0x80)
  const mstore = (offset: number, value: bigint) => {
    for (let i = 0; i < 32; i++)
      memory[offset + i] = Number((value >> BigInt(8 * (31 - i))) & 0xffn)
  }
  mstore(0x51, 0x5af43d3d93803e605757fd5bf3n)
  mstore(0x44, hexToBigInt(implementation))
  mstore(0x30, 0x593da1005b3d3d3d3d363d3d37363d73n)
  mstore(0x20, 0x9e4ac34f21c619cefc926c8bd93b54bf5a39c7ab2127a895af1cc0691d7e3dffn)
  mstore(0x00, 0x60593d8160093d39f336602c57343d527fn)
  return bytesToHex(memory.slice(0x0f, 0x0f + 0x71))
}

/** SplitFactoryV2._getSalt + Clone.predictDeterministicAddress, with the replayed init code. */
const predictFromAssembly = (split: Split, factory: Address, implementation: Address) =>
  getContractAddress({
    opcode: 'CREATE2',
    from: factory,
    salt: keccak256(
      concat([
        // abi.encode(Split, address): head (tuple offset, owner), then the tuple.
        `0x${(0x40).toString(16).padStart(64, '0')}${zeroAddress.slice(2).padStart(64, '0')}`,
        `0x${[0x80n, 0x80n + 0x20n * BigInt(split.recipients.length + 1), split.totalAllocation]
          .concat(BigInt(split.distributionIncentive), BigInt(split.recipients.length))
          .concat(split.recipients.map((one) => hexToBigInt(one)))
          .concat(BigInt(split.allocations.length), split.allocations)
          .map((word) => word.toString(16).padStart(64, '0'))
          .join('')}`,
        zeroHash,
      ]),
    ),
    bytecode: cloneInitCodeFromAssembly(implementation),
  })

describe('splitFor', () => {
  test('default', () => {
    expect(splitFor({ seller, feeRecipient: hub, feeBps: 250 })).toMatchInlineSnapshot(`
      {
        "allocations": [
          975000n,
          25000n,
        ],
        "distributionIncentive": 0,
        "recipients": [
          "0x3aa62bAb8c47716eE13421d0620C9FC9740A5a62",
          "0xC1FbA134Be2D9c2EBe7a0F58224b00f9200C7f52",
        ],
        "totalAllocation": 1000000n,
      }
    `)
  })

  test('behavior: recipients sorted ascending whatever the roles', () => {
    const split = splitFor({
      seller: seller2,
      feeRecipient: hub.toLowerCase() as Address,
      feeBps: 1,
    })
    expect(split.recipients).toEqual([hub, seller2])
    expect(split.allocations).toEqual([100n, 999_900n])
  })

  test('behavior: a single recipient when there is nothing to split', () => {
    const single = (recipient: Address) => ({
      recipients: [recipient],
      allocations: [1_000_000n],
      totalAllocation: 1_000_000n,
      distributionIncentive: 0,
    })
    expect(splitFor({ seller, feeRecipient: hub, feeBps: 0 })).toEqual(single(seller))
    expect(splitFor({ seller, feeRecipient: hub, feeBps: 10_000 })).toEqual(single(hub))
    const lower = seller.toLowerCase() as Address
    expect(splitFor({ seller, feeRecipient: lower, feeBps: 300 })).toEqual(single(seller))
  })

  test('error: fee outside 0..10000 bps', () => {
    for (const feeBps of [-1, 10_001, 2.5, Number.NaN])
      expect(() => splitFor({ seller, feeRecipient: hub, feeBps })).toThrow(/feeBps/)
  })
})

describe('splitAddress', () => {
  // Cross-checked once against `predictDeterministicAddress` and `createSplitDeterministic` of
  // the upstream factory run on anvil at these canonical addresses (a throwaway check: no
  // upstream code or bytecode lives in this repo).
  test('default', () => {
    expect(splitAddress(splitFor({ seller, feeRecipient: hub, feeBps: 250 }))).toBe(
      '0x51B5685f236bDd67a637B3b2f4d4e059442D8762',
    )
    expect(splitAddress(splitFor({ seller: seller2, feeRecipient: hub, feeBps: 1 }))).toBe(
      '0x642A9cF5222138182232042a6CD00edfA6BB6DA4',
    )
    expect(splitAddress(splitFor({ seller, feeRecipient: seller, feeBps: 300 }))).toBe(
      '0x769628e49E8Cc50493e1D179A6e02D5B25539a69',
    )
    const salt = keccak256(stringToHex('x'))
    expect(
      splitAddress(splitFor({ seller, feeRecipient: hub, feeBps: 9999 }), { owner, salt }),
    ).toBe('0xE9eBe9b1c28adb1E607A5df85AA88c7eE4C7f4c6')
    const unsorted = {
      recipients: [seller2, seller, hub],
      allocations: [1n, 2n, 3n],
      totalAllocation: 6n,
      distributionIncentive: 65_535,
    }
    const saltY = keccak256(stringToHex('y'))
    expect(splitAddress(unsorted, { owner, salt: saltY })).toBe(
      '0x4512F7AD7A0845eb9AE9A92E99417520F4F1Df81',
    )
  })

  test('behavior: implementation is the factory’s first CREATE', () => {
    expect(getContractAddress({ from: PUSH_SPLIT_FACTORY_V2o2, nonce: 1n })).toBe(
      PUSH_SPLIT_V2o2_IMPLEMENTATION,
    )
    const split = splitFor({ seller, feeRecipient: hub, feeBps: 250 })
    expect(splitAddress(split, { implementation: PUSH_SPLIT_V2o2_IMPLEMENTATION })).toBe(
      splitAddress(split),
    )
  })

  test('behavior: matches the formula replayed from the upstream assembly', () => {
    const factories = [PUSH_SPLIT_FACTORY_V2o2, seller2]
    for (const feeBps of [0, 1, 250, 5_000, 10_000])
      for (const factory of factories) {
        const split = splitFor({ seller, feeRecipient: hub, feeBps })
        const implementation = getContractAddress({ from: factory, nonce: 1n })
        expect(splitAddress(split, { factory })).toBe(
          predictFromAssembly(split, factory, implementation),
        )
      }
  })

  test('behavior: deterministic, and every input moves the address', () => {
    const split = splitFor({ seller, feeRecipient: hub, feeBps: 250 })
    const base = splitAddress(split)
    expect(splitAddress(splitFor({ seller, feeRecipient: hub, feeBps: 250 }))).toBe(base)
    expect(getAddress(base)).toBe(base)
    const others = [
      splitAddress(splitFor({ seller, feeRecipient: hub, feeBps: 251 })),
      splitAddress(splitFor({ seller: seller2, feeRecipient: hub, feeBps: 250 })),
      splitAddress(splitFor({ seller: hub, feeRecipient: seller, feeBps: 250 })),
      splitAddress({ ...split, distributionIncentive: 1 }),
      splitAddress({ ...split, recipients: [...split.recipients].reverse() }),
      splitAddress(split, { owner }),
      splitAddress(split, { salt: keccak256('0x01') }),
      splitAddress(split, { factory: seller2 }),
      splitAddress(split, { implementation: seller2 }),
    ]
    expect(new Set([base, ...others]).size).toBe(others.length + 1)
  })
})

describe('splitShares', () => {
  test('default', () => {
    expect(splitShares(1_000_000n, { seller, feeRecipient: hub, feeBps: 250 })).toEqual({
      seller: 974_999n,
      hub: 24_999n,
      dust: 2n,
    })
    expect(splitShares(0n, { seller, feeRecipient: hub, feeBps: 250 })).toEqual({
      seller: 0n,
      hub: 0n,
      dust: 0n,
    })
    expect(splitShares(5n, { seller, feeRecipient: seller, feeBps: 250 })).toEqual({
      seller: 4n,
      hub: 0n,
      dust: 1n,
    })
  })

  test('behavior: floor of (gross - 1) by bps, the rest stays as dust', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.integer({ min: 0, max: 10_000 }),
        (gross, feeBps) => {
          const shares = splitShares(gross, { seller, feeRecipient: hub, feeBps })
          const amount = gross > 0n ? gross - 1n : 0n
          expect(shares.hub).toBe((amount * BigInt(feeBps)) / 10_000n)
          expect(shares.seller).toBe((amount * BigInt(10_000 - feeBps)) / 10_000n)
          expect(shares.seller + shares.hub + shares.dust).toBe(gross)
          expect(shares.dust).toBeGreaterThanOrEqual(gross > 0n ? 1n : 0n)
          expect(shares.dust).toBeLessThanOrEqual(2n)
        },
      ),
    )
  })
})

describe('clone init code on anvil', () => {
  /** Anvil's default CREATE2 deployer (Arachnid's): calldata is salt ++ init code. */
  const create2Deployer: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'
  /** ADDRESS; MSTORE(0); RETURN(0, 32): under DELEGATECALL it answers the clone's own address. */
  const whoAmI: Hex = '0x3060005260206000f3'

  test('behavior: deploys the receive-logging proxy to the CREATE2 address', async () => {
    const anvil = await spawnAnvil()
    try {
      const client = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
        .extend(publicActions)
        .extend(walletActions)
      const implementation = PUSH_SPLIT_V2o2_IMPLEMENTATION
      await client.setCode({ address: implementation, bytecode: whoAmI })
      const salt = keccak256(stringToHex('swap-rail'))
      const bytecode = cloneInitCodeFromAssembly(implementation)
      const deploy = { account: owner, chain: null, to: create2Deployer } as const
      const hash = await client.sendTransaction({ ...deploy, data: concat([salt, bytecode]) })
      expect((await client.waitForTransactionReceipt({ hash })).status).toBe('success')
      const clone = getContractAddress({ opcode: 'CREATE2', from: create2Deployer, salt, bytecode })

      const code = await client.getCode({ address: clone })
      expect(code?.length).toBe(2 + 89 * 2)
      expect(code).toContain(implementation.slice(2).toLowerCase())
      const { data } = await client.call({ to: clone, data: '0x01' })
      expect(getAddress(`0x${data!.slice(-40)}`)).toBe(clone)

      const sent = await client.sendTransaction({ ...deploy, to: clone, value: 7n })
      const [log] = (await client.waitForTransactionReceipt({ hash: sent })).logs
      expect(log?.topics).toEqual([keccak256(stringToHex('ReceiveETH(uint256)'))])
      expect(hexToBigInt(log!.data)).toBe(7n)
    } finally {
      await anvil.stop()
    }
  })
})
