import { spawnAnvil } from '@agents/devnet'
import {
  type CreateMulticurveParams,
  DopplerFactory,
  getAddresses,
} from '@whetstone-research/doppler-sdk/evm'
import fc from 'fast-check'
import { decodeAbiParameters, getAddress, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  intentArbitrary,
  intentCases,
  type SignPayload,
  useConformanceRouter,
} from './conformance-router.ts'
import {
  deployVia,
  derc2080InitCode,
  type LocalChain,
  localChain,
} from './execution/doppler-contracts.ts'
import { createOfflineClient } from './offline-client.ts'
import { reviveConfig } from './revive-config.ts'

/**
 * The router's doppler-multicurve payloads executed where npm allows: the SDK
 * encodes the Airlock create() arguments offline and a local anvil runs the
 * token constructor of the create path (Base's TokenFactory80 creates a
 * DERC2080 from the SDK's creation code, at TokenFactory80's address with the
 * payload's salt) with the intent's name, symbol, token URI, vesting and
 * creator. The multicurve initializer, BeneficiaryData and the Airlock ship
 * no bytecode on npm: their conditions are checked offline and listed with
 * their source lines in conditions/doppler-multicurve.md.
 */
const PAD = 'doppler-multicurve'
const BASE = 8453
const router = useConformanceRouter()
const addresses = getAddresses(BASE)
const DERC20 = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function tokenURI() view returns (string)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address) view returns (uint256)',
  'function vestingDuration() view returns (uint256)',
  'function getVestingDataOf(address) view returns (uint256 totalAmount, uint256 releasedAmount)',
])

let capabilities: Capabilities
let chain: LocalChain
let stop: () => Promise<void>
beforeAll(async () => {
  capabilities = await router.capabilities(PAD)
  const anvil = await spawnAnvil({ args: ['--chain-id', String(BASE)] })
  chain = localChain(anvil.rpcUrl, BASE)
  stop = anvil.stop
}, 60_000)
afterAll(async () => stop?.())

const read = (address: `0x${string}`, functionName: string, args: unknown[] = []) =>
  chain.public.readContract({
    address,
    abi: DERC20,
    functionName,
    args,
  } as never) as Promise<unknown>

/** The payload's token, created on anvil as TokenFactory80 creates it; its state read back. */
const launchToken = async (label: string, payload: SignPayload) => {
  const factory = new DopplerFactory(createOfflineClient(), undefined, BASE)
  const config = reviveConfig(payload as never) as CreateMulticurveParams<typeof BASE>
  const create = await factory.encodeCreateMulticurveParams(config)
  expect(create.tokenFactory, label).toBe(addresses.tokenFactory)
  const deployed = await deployVia(
    chain,
    create.tokenFactory,
    create.salt,
    derc2080InitCode(create, addresses.airlock),
  )
  if (!deployed.ok) throw new Error(`${label}: the token constructor reverted ${deployed.revert}`)
  const [name, symbol, , vestingDuration, recipients, amounts, tokenURI] = decodeAbiParameters(
    [
      { type: 'string' },
      { type: 'string' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'address[]' },
      { type: 'uint256[]' },
      { type: 'string' },
    ],
    create.tokenFactoryData,
  )
  const token = deployed.address
  expect(await read(token, 'name'), label).toBe(name)
  expect(await read(token, 'symbol'), label).toBe(symbol)
  expect(await read(token, 'tokenURI'), label).toBe(tokenURI)
  expect(await read(token, 'vestingDuration'), label).toBe(vestingDuration)
  expect(await read(token, 'totalSupply'), label).toBe(create.initialSupply)
  // The creator's 100M vest in the token; the rest goes to the Airlock, which hands the sale to the pool.
  expect(recipients).toEqual([getAddress(config.userAddress)])
  expect(await read(token, 'getVestingDataOf', [recipients[0]]), label).toEqual([amounts[0], 0n])
  expect(await read(token, 'balanceOf', [addresses.airlock]), label).toBe(
    create.initialSupply - amounts[0]!,
  )
}

describe('doppler-multicurve payloads run on anvil: the token is created with the intent', () => {
  test('the defaults and every generated knob value', async () => {
    let launched = 0
    for (const { label, intent } of intentCases(capabilities)) {
      // Curves whose liquidity the pool cannot hold are refused (doppler-multicurve.test.ts).
      if (!(await router.draft(intent)).ok) continue
      await launchToken(label, await router.signPayload(intent))
      launched += 1
    }
    expect(launched).toBeGreaterThan(10)
  }, 300_000)

  test('random valid intents (fast-check, bounded)', async () => {
    await fc.assert(
      fc.asyncProperty(intentArbitrary(capabilities), async (intent) => {
        fc.pre((await router.draft(intent)).ok)
        await launchToken(JSON.stringify(intent), await router.signPayload(intent))
      }),
      { numRuns: 10 },
    )
  }, 300_000)
})
