import { parseArgs } from 'node:util'
import { type Address, createPublicClient, http, isAddress } from 'viem'
import { base } from 'viem/chains'
import { planCollection } from './split/plan-collection.ts'

/** USDC on Base (the token buyers pay the split in). */
export const BASE_USDC: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

export const SELLER_COMMAND_USAGE = `usage: swap-seller collect --hub <hub base URL> --pay-to <address>
         [--fee-recipient <address>] [--rpc <Base RPC URL>] [--token <address>]

Shows each split of payTo (address, USDC balance, whether it exists, what each
recipient would receive) and prints the unsigned transactions your own wallet
signs: create the split if it has no code, then distribute. Nothing is signed
or sent. --rpc defaults to ${base.rpcUrls.default.http[0]}.`

export type RunSellerCommandReturnType = { code: number; stdout: string; stderr: string }

/**
 * The seller command: `collect` reads the hub's public offers and the chain
 * (read-only RPC) and prints a JSON plan with unsigned transactions. Returns
 * the exit code and output instead of printing, so tests can run it in-process.
 *
 * @example await runSellerCommand(['collect', '--hub', hubUrl, '--pay-to', payTo])
 */
export const runSellerCommand = async (
  argv: string[],
  { fetch: fetchImpl = globalThis.fetch }: { fetch?: typeof fetch } = {},
): Promise<RunSellerCommandReturnType> => {
  const fail = (message: string) => ({
    code: 2,
    stdout: '',
    stderr: `${message}\n\n${SELLER_COMMAND_USAGE}\n`,
  })
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  const { positionals, values } = parsed
  if (positionals[0] !== 'collect') return fail(`unknown command: ${positionals[0] ?? '(none)'}`)
  const problems: string[] = []
  if (!values.hub || !URL.canParse(values.hub)) problems.push('--hub: a URL is required')
  for (const name of ['pay-to', 'fee-recipient', 'token'] as const) {
    const value = values[name]
    if (value !== undefined && !isAddress(value, { strict: false }))
      problems.push(`--${name}: not an address`)
  }
  if (!values['pay-to']) problems.push('--pay-to: required')
  if (problems.length > 0) return fail(problems.join('\n'))

  const client = createPublicClient({ transport: http(values.rpc ?? base.rpcUrls.default.http[0]) })
  const plan = await planCollection(
    { client, fetch: fetchImpl },
    {
      hubUrl: values.hub!,
      payTo: values['pay-to']!,
      feeRecipient: values['fee-recipient'],
      token: (values.token as Address | undefined) ?? BASE_USDC,
    },
  )
  const stdout = `${JSON.stringify(plan, null, 2)}\n`
  return plan.ok ? { code: 0, stdout, stderr: '' } : { code: 1, stdout, stderr: `${plan.detail}\n` }
}

const parse = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      hub: { type: 'string' },
      'pay-to': { type: 'string' },
      'fee-recipient': { type: 'string' },
      rpc: { type: 'string' },
      token: { type: 'string' },
    },
  })
