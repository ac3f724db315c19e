import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { beforeAll, describe, expect, test } from 'vitest'
import {
  type Capabilities,
  intentCases,
  type SignPayload,
  useConformanceRouter,
} from './conformance-router.ts'

/**
 * Each wired sdk-deploy pad's payloads, as a TypeScript user holds them (the
 * JSON as a literal), go through reviveConfig, the documented conversion, into
 * the SDK's own typed call. tsc must accept every one: a field the SDK types
 * as bigint left unmarked, or a marked field it does not, fails to compile.
 */
const SDK_CALLS: Record<string, { imports: string; call: (config: string) => string }> = {
  'clanker-v4': {
    imports: `import type { Clanker } from 'clanker-sdk/v4'\ndeclare const sdk: Clanker`,
    call: (config) => `sdk.deploy(${config})`,
  },
  'zora-coin': {
    imports: `import type { createCoin } from '@zoralabs/coins-sdk'\ndeclare const sdk: typeof createCoin\ndeclare const clients: Omit<Parameters<typeof createCoin>[0], 'call'>`,
    call: (config) => `sdk({ ...clients, call: ${config} })`,
  },
  flaunch: {
    imports: `import type { createFlaunchCalldata } from '@flaunch/sdk'\ndeclare const sdk: ReturnType<typeof createFlaunchCalldata>`,
    call: (config) => `sdk.flaunchIPFS(${config})`,
  },
  'doppler-multicurve': {
    imports: `import type { DopplerSDK } from '@whetstone-research/doppler-sdk/evm'\ndeclare const sdk: DopplerSDK<8453>`,
    call: (config) => `sdk.factory.createMulticurve(${config})`,
  },
  'doppler-dynamic': {
    imports: `import type { DopplerSDK } from '@whetstone-research/doppler-sdk/evm'\ndeclare const sdk: DopplerSDK<8453>`,
    call: (config) => `sdk.factory.createDynamicAuction(${config})`,
  },
  pumpfun: {
    imports: `import type { PumpSdk } from '@pump-fun/pump-sdk'\nimport type { PublicKey } from '@solana/web3.js'\ndeclare const sdk: PumpSdk\ndeclare const mint: PublicKey\ndeclare const toPublicKey: (base58: string) => PublicKey`,
    call: (config) => `sdk.createV2Instruction({ ...${config}, mint })`,
  },
}

const directory = dirname(fileURLToPath(import.meta.url))
const router = useConformanceRouter()

/** One virtual module per pad: every payload literal, converted, passed to the SDK call. */
const snippet = (pad: string, payloads: SignPayload[]) => {
  const { imports, call } = SDK_CALLS[pad]!
  const lines = [`import { reviveConfig } from './revive-config.ts'`, imports]
  payloads.forEach((payload, index) => {
    lines.push(`const payload${index} = ${JSON.stringify(payload)} as const`)
    const options = payload.publicKeys ? ', { toPublicKey }' : ''
    lines.push(`${call(`reviveConfig(payload${index}${options})`)}`)
  })
  return `${lines.join('\n')}\n`
}

/** Type-checks virtual modules beside this file with the repository's compiler options. */
const typecheck = (files: Record<string, string>) => {
  const root = join(directory, '../../..')
  const parsed = ts.parseJsonConfigFileContent(
    ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config,
    ts.sys,
    root,
  )
  const paths = new Map(Object.entries(files).map(([name, text]) => [join(directory, name), text]))
  const host = ts.createCompilerHost(parsed.options)
  const { fileExists, readFile, getSourceFile } = host
  host.fileExists = (name) => paths.has(name) || fileExists.call(host, name)
  host.readFile = (name) => paths.get(name) ?? readFile.call(host, name)
  host.getSourceFile = (name, language, ...rest) =>
    paths.has(name)
      ? ts.createSourceFile(name, paths.get(name)!, language)
      : getSourceFile.call(host, name, language, ...rest)
  const program = ts.createProgram([...paths.keys()], parsed.options, host)
  return Object.fromEntries(
    [...paths.keys()].map((name) => [
      name.slice(directory.length + 1),
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(name))
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    ]),
  )
}

const payloadsByPad = new Map<string, SignPayload[]>()
beforeAll(async () => {
  const { pads } = (await router.list()) as { pads: { id: string; kind: string; status: string }[] }
  for (const pad of pads) {
    if (pad.kind !== 'sdk-deploy' || pad.status !== 'wired') continue
    const capabilities: Capabilities = await router.capabilities(pad.id)
    const payloads: SignPayload[] = []
    for (const { intent } of intentCases(capabilities)) {
      // A generated case can break a rule across knobs (doppler-dynamic): no payload to type.
      if ((await router.draft(intent)).ok) payloads.push(await router.signPayload(intent))
    }
    payloadsByPad.set(pad.id, payloads)
  }
})

const at = (value: unknown, path: string[]): unknown[] => {
  const [head, ...rest] = path
  if (head === undefined) return [value]
  if (typeof value !== 'object' || value === null) return []
  if (head === '*') return Array.isArray(value) ? value.flatMap((item) => at(item, rest)) : []
  return head in value ? at((value as Record<string, unknown>)[head], rest) : []
}

describe('sign payloads type-check against the SDKs declared parameter types', () => {
  test('every wired sdk-deploy pad has its SDK call here', () => {
    expect([...payloadsByPad.keys()].sort()).toEqual(Object.keys(SDK_CALLS).sort())
  })

  test('every marked path holds a value in some generated payload, in the documented form', () => {
    for (const [pad, payloads] of payloadsByPad) {
      for (const path of payloads[0]!.bigints as string[]) {
        const values = payloads.flatMap((payload) => at(payload.config, path.split('.')))
        expect(values.length, `${pad} ${path}`).toBeGreaterThan(0)
        for (const value of values)
          expect(
            (typeof value === 'number' && Number.isSafeInteger(value)) ||
              (typeof value === 'string' && /^[0-9]{1,78}$/.test(value)),
            `${pad} ${path} = ${JSON.stringify(value)}`,
          ).toBe(true)
      }
      for (const path of (payloads[0]!.publicKeys as string[] | undefined) ?? [])
        expect(
          payloads.flatMap((payload) => at(payload.config, path.split('.'))).length,
        ).toBeGreaterThan(0)
    }
  })

  test('tsc accepts sdkCall(reviveConfig(payload)) for every generated payload, and refuses a wrong marker', () => {
    const files: Record<string, string> = {}
    for (const [pad, payloads] of payloadsByPad)
      files[`typecheck-${pad}.ts`] = snippet(pad, payloads)
    // Controls: the same call with the flaunch marker dropped, and with a marker on a string field.
    const flaunch = payloadsByPad
      .get('flaunch')!
      .find((payload) => 'flaunchAt' in (payload.config as object))!
    files['typecheck-control-unmarked.ts'] = snippet('flaunch', [{ ...flaunch, bigints: [] }])
    files['typecheck-control-overmarked.ts'] = snippet('flaunch', [
      { ...flaunch, bigints: ['flaunchAt', 'symbol'] },
    ])
    const diagnostics = typecheck(files)
    for (const pad of payloadsByPad.keys())
      expect(diagnostics[`typecheck-${pad}.ts`], pad).toEqual([])
    expect(diagnostics['typecheck-control-unmarked.ts']!.join('\n')).toMatch(/flaunchAt/)
    expect(diagnostics['typecheck-control-overmarked.ts']!.join('\n')).toMatch(/symbol/)
    // One TypeScript program over every pad's SDK types: 15-45 s of compiler on a busy machine.
  }, 120_000)
})
