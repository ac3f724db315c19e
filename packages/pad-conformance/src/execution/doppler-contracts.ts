import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import {
  type CreateParams,
  DERC20Bytecode,
  DERC2080Bytecode,
  DopplerBytecode,
  getAddresses,
} from '@whetstone-research/doppler-sdk/evm'
import {
  type Abi,
  BaseError,
  type Chain,
  concat,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeAbiParameters,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  http,
  parseAbi,
  RawContractError,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { CREATE2_DEPLOYER_RUNTIME } from './create2-deployer.ts'

const require = createRequire(import.meta.url)

// anvil's first default key: a funded account on every fresh anvil.
const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

/** Clients on a local anvil that pretends to be `chainId`. */
export const localChain = (rpcUrl: string, chainId: number) => {
  const chain = {
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  } as const satisfies Chain
  const transport = http(rpcUrl)
  return {
    public: createPublicClient({ chain, transport }),
    test: createTestClient({ chain, transport, mode: 'anvil' }),
    wallet: createWalletClient({ chain, transport, account: privateKeyToAccount(ANVIL_KEY) }),
  }
}
export type LocalChain = ReturnType<typeof localChain>

/** The outcome of a CREATE2 through a deployer: the new contract, or the constructor's revert data. */
export type Deployed = { ok: true; address: Hex } | { ok: false; revert: Hex }

/**
 * Creates `initCode` with `salt` from `deployer`'s address, as Doppler's
 * factories do, on the local chain: a call first (to read a revert's data),
 * then the transaction itself, mined, with the code checked in place.
 */
export const deployVia = async (
  chain: LocalChain,
  deployer: Hex,
  salt: Hex,
  initCode: Hex,
): Promise<Deployed> => {
  await chain.test.setCode({ address: deployer, bytecode: CREATE2_DEPLOYER_RUNTIME })
  const data = concat([salt, initCode])
  try {
    await chain.public.call({ to: deployer, data, gas: 30_000_000n })
  } catch (error) {
    const raw =
      error instanceof BaseError
        ? (error.walk((cause) => cause instanceof RawContractError) as RawContractError | null)
        : null
    const revert = (raw?.data as Hex | undefined) ?? (findRevertData(error) as Hex | undefined)
    if (revert !== undefined) return { ok: false, revert }
    throw error
  }
  const hash = await chain.wallet.sendTransaction({ to: deployer, data, gas: 30_000_000n })
  const receipt = await chain.public.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success')
    throw new Error(`deployment ${hash} reverted after its call passed`)
  const address = getContractAddress({
    opcode: 'CREATE2',
    from: deployer,
    salt,
    bytecode: initCode,
  })
  const code = await chain.public.getCode({ address })
  if (!code || code === '0x') throw new Error(`no code at ${address} after ${hash}`)
  return { ok: true, address }
}

const findRevertData = (error: unknown): string | undefined => {
  let cursor = error as { data?: unknown; cause?: unknown } | undefined
  for (let depth = 0; cursor && depth < 10; depth++) {
    if (typeof cursor.data === 'string' && cursor.data.startsWith('0x')) return cursor.data
    if (typeof cursor.data === 'object' && cursor.data !== null) {
      const inner = (cursor.data as { data?: unknown }).data
      if (typeof inner === 'string' && inner.startsWith('0x')) return inner
    }
    cursor = cursor.cause as typeof cursor
  }
  return undefined
}

const TOKEN_FACTORY_DATA = [
  { type: 'string' },
  { type: 'string' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'address[]' },
  { type: 'uint256[]' },
  { type: 'string' },
] as const

/**
 * The token the chain's token factory creates inside Airlock.create: TokenFactory80
 * (Base; whetstoneresearch/doppler@f987463 src/tokens/TokenFactory80.sol) does
 * `new DERC2080{salt}(name, symbol, initialSupply, airlock, airlock, yearlyMintCap,
 * vestingDuration, recipients, amounts, tokenURI)`, TokenFactory (Unichain) the same
 * with DERC20. Of the SDK's two creation codes, the one whose CREATE2 address is the
 * token address the SDK mined; undefined when neither is (Ethereum's factory clones
 * an implementation the SDK does not ship).
 */
export const tokenInitCode = (create: CreateParams, airlock: Hex, tokenAddress: Hex) =>
  [DERC2080Bytecode, DERC20Bytecode]
    .map((creation) => concat([creation as Hex, tokenArgs(create, airlock)]))
    .find(
      (bytecode) =>
        getContractAddress({
          opcode: 'CREATE2',
          from: create.tokenFactory,
          salt: create.salt,
          bytecode,
        }) === getAddress(tokenAddress),
    )

/** Base's TokenFactory80 token (DERC2080), for a create whose token address the SDK does not return. */
export const derc2080InitCode = (create: CreateParams, airlock: Hex): Hex =>
  concat([DERC2080Bytecode as Hex, tokenArgs(create, airlock)])

const tokenArgs = (create: CreateParams, airlock: Hex) => {
  const [name, symbol, yearlyMintCap, vestingDuration, recipients, amounts, tokenURI] =
    decodeAbiParameters(TOKEN_FACTORY_DATA, create.tokenFactoryData)
  return encodeAbiParameters(
    [
      { type: 'string' },
      { type: 'string' },
      { type: 'uint256' },
      { type: 'address' },
      { type: 'address' },
      { type: 'uint256' },
      { type: 'uint256' },
      { type: 'address[]' },
      { type: 'uint256[]' },
      { type: 'string' },
    ],
    [
      name,
      symbol,
      create.initialSupply,
      airlock,
      airlock,
      yearlyMintCap,
      vestingDuration,
      recipients,
      amounts,
      tokenURI,
    ],
  )
}

const DOPPLER_DATA = [
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'int24' },
  { type: 'int24' },
  { type: 'uint256' },
  { type: 'int24' },
  { type: 'bool' },
  { type: 'uint256' },
  { type: 'uint24' },
  { type: 'int24' },
] as const

/**
 * The hook DopplerDeployer creates inside UniswapV4Initializer.initialize
 * (whetstoneresearch/doppler@d223428 src/initializers/UniswapV4Initializer.sol
 * lines 23-58): `new Doppler{salt}(poolManager, numTokensToSell, minimumProceeds,
 * maximumProceeds, startingTime, endingTime, startingTick, endingTick,
 * epochLength, gamma, isToken0, numPDSlugs, msg.sender (the initializer), lpFee)`,
 * with the SDK's Doppler creation code.
 */
export const hookInitCode = (create: CreateParams, chainId: number): Hex => {
  const addresses = getAddresses(chainId as never)
  const [minimum, maximum, start, end, startTick, endTick, epoch, gamma, isToken0, slugs, fee] =
    decodeAbiParameters(DOPPLER_DATA, create.poolInitializerData)
  return concat([
    DopplerBytecode as Hex,
    encodeAbiParameters(
      [
        { type: 'address' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'uint256' },
        { type: 'int24' },
        { type: 'int24' },
        { type: 'uint256' },
        { type: 'int24' },
        { type: 'bool' },
        { type: 'uint256' },
        { type: 'address' },
        { type: 'uint24' },
      ],
      [
        addresses.poolManager,
        create.numTokensToSell,
        minimum,
        maximum,
        start,
        end,
        startTick,
        endTick,
        epoch,
        gamma,
        isToken0,
        slugs,
        addresses.v4Initializer,
        fee,
      ],
    ),
  ])
}

/** The hook's auction start (startingTime), from the initializer data. */
export const hookStartingTime = (create: CreateParams) =>
  decodeAbiParameters(DOPPLER_DATA, create.poolInitializerData)[2]

/** The hook's isToken0, from the initializer data. */
export const hookIsToken0 = (create: CreateParams) =>
  decodeAbiParameters(DOPPLER_DATA, create.poolInitializerData)[8]

const v4Artifact = (name: string) =>
  JSON.parse(
    readFileSync(require.resolve(`@uniswap/v4-core/out/${name}.sol/${name}.json`), 'utf8'),
  ) as {
    abi: Abi
    bytecode: { object: Hex }
    deployedBytecode: {
      object: Hex
      immutableReferences?: Record<string, { start: number; length: number }[]>
    }
  }

/**
 * Uniswap v4's PoolManager (`@uniswap/v4-core` 1.0.2's build) at the chain's PoolManager address,
 * which the Doppler hook was constructed with. Its one immutable, NoDelegateCall's own address,
 * is written in as its constructor would have: `initialize` refuses to run anywhere else.
 */
export const placePoolManager = async (chain: LocalChain, address: Hex) => {
  const { deployedBytecode } = v4Artifact('PoolManager')
  let code = deployedBytecode.object.slice(2)
  const word = address.slice(2).toLowerCase().padStart(64, '0')
  for (const references of Object.values(deployedBytecode.immutableReferences ?? {}))
    for (const { start, length } of references)
      code =
        code.slice(0, start * 2) + word.slice(64 - length * 2) + code.slice((start + length) * 2)
  await chain.test.setCode({ address, bytecode: `0x${code}` })
}

/** v4-core's TickMathTest: the exact on-chain `getSqrtPriceAtTick` the initializer uses. */
export const deployTickMath = async (chain: LocalChain) => {
  const { abi, bytecode } = v4Artifact('TickMathTest')
  const hash = await chain.wallet.deployContract({ abi, bytecode: bytecode.object })
  const { contractAddress } = await chain.public.waitForTransactionReceipt({ hash })
  return async (tick: number) =>
    (await chain.public.readContract({
      address: contractAddress!,
      abi,
      functionName: 'getSqrtPriceAtTick',
      args: [tick],
    })) as bigint
}

const ERC20 = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])
const POOL_MANAGER = parseAbi([
  'function initialize((address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, uint160 sqrtPriceX96) returns (int24 tick)',
])
// Uniswap v4's LPFeeLibrary.DYNAMIC_FEE_FLAG: the Doppler hook sets its own fee.
const DYNAMIC_FEE_FLAG = 0x800000

/** A transaction from an address the local chain lets us act as (the Airlock, the initializer). */
const sendAs = async (chain: LocalChain, from: Hex, to: Hex, data: Hex): Promise<Deployed> => {
  await chain.test.impersonateAccount({ address: from })
  await chain.test.setBalance({ address: from, value: 10n ** 18n })
  try {
    await chain.public.call({ account: from, to, data, gas: 30_000_000n })
  } catch (error) {
    const revert = findRevertData(error) as Hex | undefined
    if (revert !== undefined) return { ok: false, revert }
    throw error
  }
  const hash = await chain.wallet.sendTransaction({
    account: from,
    to,
    data,
    gas: 30_000_000n,
    chain: chain.wallet.chain,
  })
  const receipt = await chain.public.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`${hash} reverted after its call passed`)
  return { ok: true, address: to }
}

/**
 * The rest of UniswapV4Initializer.initialize (d223428 src/initializers/UniswapV4Initializer.sol
 * lines 104-114) once the hook exists: the Airlock's sale goes to the hook, and the pool is
 * initialized at the start tick, from the initializer's address; the hook's afterInitialize then
 * places its first slugs through the PoolManager.
 */
export const initializeDopplerPool = async (
  chain: LocalChain,
  create: CreateParams,
  token: Hex,
  hook: Hex,
  sqrtPriceAtTick: (tick: number) => Promise<bigint>,
) => {
  const addresses = getAddresses(chain.public.chain.id as never)
  const [, , , , startTick, , , , isToken0, , , tickSpacing] = decodeAbiParameters(
    DOPPLER_DATA,
    create.poolInitializerData,
  )
  const handed = await sendAs(
    chain,
    addresses.airlock,
    token,
    encodeFunctionData({
      abi: ERC20,
      functionName: 'transfer',
      args: [hook, create.numTokensToSell],
    }),
  )
  if (!handed.ok) return handed
  const key = {
    currency0: isToken0 ? token : create.numeraire,
    currency1: isToken0 ? create.numeraire : token,
    fee: DYNAMIC_FEE_FLAG,
    tickSpacing,
    hooks: hook,
  }
  return sendAs(
    chain,
    addresses.v4Initializer,
    addresses.poolManager,
    encodeFunctionData({
      abi: POOL_MANAGER,
      functionName: 'initialize',
      args: [key, await sqrtPriceAtTick(startTick)],
    }),
  )
}
