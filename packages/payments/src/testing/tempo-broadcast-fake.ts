import {
  type AbiEvent,
  type Chain,
  createClient,
  custom,
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  http,
  keccak256,
} from 'viem'
import { Abis, Transaction } from 'viem/tempo'

/**
 * A Tempo client for MPP *pull* mode tests, with the broadcast replaced.
 *
 * Tests that count what the server broadcasts (once per payment) use it;
 * pull payments also settle on the devnet itself since its Tempo chain keeps
 * a fresh block (mpp-pull.chain.test.ts). This client answers the two calls a
 * node would answer: `eth_call` (the simulation) succeeds, and
 * `eth_sendRawTransaction(Sync)` returns the receipt a TIP-20 chain would
 * produce, with one Transfer (and TransferWithMemo) log per transfer call
 * in the signed transaction. Every other call goes to the real devnet.
 * Nothing is executed, so balances do not move: tests assert on
 * `broadcasts` instead.
 */
export const createTempoBroadcastFake = ({ chain, rpcUrl }: { chain: Chain; rpcUrl: string }) => {
  const upstream = http(rpcUrl)({ chain })
  const broadcasts: Array<{
    hash: Hex
    from: Hex
    calls: Array<{ to: Hex; functionName: string; args: readonly unknown[] }>
  }> = []

  const receiptFor = (serialized: Hex) => {
    const transaction = Transaction.deserialize(serialized as never) as unknown as {
      from: Hex
      calls: Array<{ to: Hex; data: Hex }>
    }
    const hash = keccak256(serialized)
    const calls = transaction.calls.map((call) => ({
      to: call.to,
      ...decodeFunctionData({ abi: Abis.tip20, data: call.data }),
    }))
    broadcasts.push({ hash, from: transaction.from, calls: calls as never })
    const logs = calls.flatMap((call) => {
      const [to, amount, memo] = call.args as [Hex, bigint, Hex | undefined]
      const events =
        call.functionName === 'transferWithMemo' ? ['Transfer', 'TransferWithMemo'] : ['Transfer']
      return events.map((eventName) => {
        const event = (Abis.tip20 as readonly AbiEvent[]).find(
          (item) => item.type === 'event' && item.name === eventName,
        )!
        const args = { from: transaction.from, to, amount, memo }
        return {
          address: call.to,
          topics: encodeEventTopics({ abi: [event], eventName, args } as never),
          data: encodeAbiParameters(
            event.inputs.filter((input) => !input.indexed),
            event.inputs
              .filter((input) => !input.indexed)
              .map((input) => args[input.name as keyof typeof args]),
          ),
        }
      })
    })
    return {
      transactionHash: hash,
      transactionIndex: '0x0',
      blockHash: keccak256(hash),
      blockNumber: '0x1',
      from: transaction.from,
      to: calls[0]?.to ?? null,
      cumulativeGasUsed: '0x0',
      gasUsed: '0x0',
      effectiveGasPrice: '0x0',
      contractAddress: null,
      logsBloom: `0x${'0'.repeat(512)}`,
      status: '0x1',
      type: '0x76',
      logs: logs.map((log, index) => ({
        ...log,
        logIndex: `0x${index.toString(16)}`,
        transactionHash: hash,
        transactionIndex: '0x0',
        blockHash: keccak256(hash),
        blockNumber: '0x1',
        removed: false,
      })),
    }
  }

  const client = createClient({
    chain,
    pollingInterval: 50,
    transport: custom({
      async request({ method, params }) {
        const [serialized] = (params ?? []) as [Hex]
        if (method === 'eth_call') return '0x'
        if (method === 'eth_sendRawTransactionSync') return receiptFor(serialized)
        if (method === 'eth_sendRawTransaction') return receiptFor(serialized).transactionHash
        return upstream.request({ method, params } as never)
      },
    }),
  })
  return { client, broadcasts }
}
