import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getContractAddress } from 'viem'
import { describe, expect, test } from 'vitest'
import { CREATOR, callOperation, startTestRouter } from '../testing.ts'
import { defaultPadsDirectory, loadMatrix, MatrixError, readPadFiles } from './load-matrix.ts'

const shipped = () => readPadFiles(defaultPadsDirectory) as Array<Record<string, unknown>>
const pad = (id: string) => structuredClone(shipped().find((entry) => entry.id === id)!)
const problemsOf = (data: unknown[]) => {
  try {
    loadMatrix(data)
  } catch (error) {
    if (error instanceof MatrixError) return error.problems
    throw error
  }
  return []
}

describe('loadMatrix', () => {
  test('default: the shipped matrix loads: 10 pads, all kinds, both statuses, one stock pad', () => {
    const matrix = loadMatrix(shipped())
    expect(matrix.pads).toHaveLength(10)
    expect(matrix.stockPad.id).toBe('pons-rh')
    expect(new Set(matrix.pads.map((entry) => entry.kind)).size).toBe(3)
    expect(new Set(matrix.pads.map((entry) => entry.status)).size).toBe(2)
  })

  test('errors: every problem of every pad is reported at once', () => {
    const noStockForbid = { ...pad('bankr'), forbidden: [] }
    const badKnob = {
      ...pad('zora-coin'),
      knobs: [{ name: 'salt', type: 'string', description: 'x', used: true }],
    }
    const unknownRef = pad('clanker-v4')
    ;(unknownRef.payload as { config: Record<string, unknown> }).config.extra = {
      $knob: 'nonexistent',
    }
    const wiredWithoutSalt = pad('flap')
    delete (wiredWithoutSalt.payload as Record<string, unknown>).salt
    const badAddress = pad('flaunch')
    badAddress.kind = 'rocket'
    const problems = problemsOf([
      noStockForbid,
      badKnob,
      unknownRef,
      wiredWithoutSalt,
      badAddress,
      pad('bankr'),
    ])
    expect(problems).toEqual(
      expect.arrayContaining([
        'pad bankr: every pad but the stock pad must forbid RH_STOCK',
        'pad zora-coin: a salt is never a knob: the router mines it',
        'pad clanker-v4: payload refers to unknown knob nonexistent',
        'pad flap: a wired factory pad needs its salt settings',
        'pad bankr: duplicate id',
        'exactly one pad must be the stock-pairing pad (with stockAllowlist); found 0',
      ]),
    )
    expect(problems.some((problem) => problem.startsWith('pad flaunch: kind'))).toBe(true)
  })

  test('errors: a bigints or publicKeys path that the config does not have', () => {
    const flaunch = pad('flaunch')
    ;(flaunch.payload as { bigints: string[] }).bigints = ['flaunchAt', 'launchAt']
    const pumpfun = pad('pumpfun')
    ;(pumpfun.payload as { publicKeys: string[] }).publicKeys = ['creator', 'owner.key']
    const doppler = pad('doppler-multicurve')
    ;(doppler.payload as { bigints: string[] }).bigints = ['pool.curves.*.shares', 'pool.fee.*']
    const problems = problemsOf(
      shipped().map((entry) =>
        entry.id === 'flaunch'
          ? flaunch
          : entry.id === 'pumpfun'
            ? pumpfun
            : entry.id === 'doppler-multicurve'
              ? doppler
              : entry,
      ),
    )
    expect(problems).toEqual([
      'pad doppler-multicurve: payload marks pool.fee.*, which its config does not have',
      'pad flaunch: payload marks launchAt, which its config does not have',
      'pad pumpfun: payload marks owner.key, which its config does not have',
    ])
  })

  test('errors: two stock pads, and an unchecksummed pinned address', () => {
    const second = { ...pad('pons-rh'), id: 'pons-rh-2' }
    expect(problemsOf([...shipped(), second])).toContain(
      'exactly one pad must be the stock-pairing pad (with stockAllowlist); found 2',
    )
    const lowercase = pad('flap')
    ;(lowercase.payload as { to: string }).to = '0xe2ce6ab80874fa9fa2aae65d277dd6b8e65c9de0'
    expect(problemsOf([lowercase, pad('pons-rh')]).join()).toMatch(
      /payload\.to: expected an EIP-55 address/,
    )
  })
})

test('behavior: adding a pad is adding a data file, no code', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'pads-'))
  cpSync(defaultPadsDirectory, directory, { recursive: true })
  // A new factory pad on a made-up chain, with a Uniswap v4 hook-flags rule.
  const hook = pad('flap')
  Object.assign(hook, {
    id: 'hooked',
    name: 'Hooked',
    chains: [31337],
    notes: 'a test pad',
    limits: undefined,
    rules: [],
  })
  const payload = hook.payload as { salt: Record<string, unknown> }
  payload.salt = {
    deployer: '0x4e59b44847b379578588920cA78FbF26c0B4956C',
    initCodeHash: `0x${'ab'.repeat(32)}`,
    rule: { type: 'address-low-bits', bits: 14, value: '0x20cc' },
  }
  delete hook.limits
  writeFileSync(join(directory, 'hooked.json'), JSON.stringify(hook))

  const server = await startTestRouter({ PADS_DIR: directory })
  try {
    const pads = (await callOperation(server, 'list_pads', {})).json.pads.map(
      (entry: { id: string }) => entry.id,
    )
    expect(pads).toContain('hooked')
    expect((await callOperation(server, 'list_networks', {})).json.chains).toContain(31337)
    const { status, json } = await callOperation(server, 'get_sign_payload', {
      intent: { name: 'Hook', symbol: 'HK', chainId: 31337, pad: 'hooked', creator: CREATOR },
    })
    expect(status).toBe(200)
    const address = getContractAddress({
      opcode: 'CREATE2',
      from: json.payload.salt.deployer,
      salt: json.payload.salt.value,
      bytecodeHash: json.payload.salt.initCodeHash,
    })
    expect(address).toBe(json.payload.salt.predictedAddress)
    expect(BigInt(address) & 0x3fffn).toBe(0x20ccn)
  } finally {
    await server.close()
  }
  // The shipped files were not touched.
  expect(readFileSync(join(defaultPadsDirectory, 'flap.json'), 'utf8')).not.toContain('hooked')
})
