import { Hono } from 'hono'
import { type Address, isAddress } from 'viem'
import { type ServeLocalReturnType, serveLocal } from '../serve-local.ts'
import type { DevnetFunder, FundRequest } from './create-devnet-funder.ts'

/**
 * Serves a funder to vitest's workers: `POST /fund` with `{ "base": [...], "tempo": [...] }`
 * answers 204 once every account is funded, 400 on a bad body, 500 with the reason otherwise.
 *
 * @example
 * const server = await serveDevnetFunder(funder)
 * await fetch(`${server.url}/fund`, { method: 'POST', body: JSON.stringify({ base: [payer] }) })
 */
export const serveDevnetFunder = (funder: DevnetFunder): Promise<ServeLocalReturnType> => {
  const app = new Hono()
  app.post('/fund', async (c) => {
    const request = parseFundRequest(await c.req.json().catch(() => undefined))
    if (!request) return c.json({ error: 'expected { base?: address[], tempo?: address[] }' }, 400)
    try {
      await funder.fund(request)
      return c.body(null, 204)
    } catch (error) {
      return c.json({ error: error instanceof Error ? error.message : String(error) }, 500)
    }
  })
  return serveLocal(app.fetch)
}

const parseFundRequest = (body: unknown): FundRequest | undefined => {
  if (typeof body !== 'object' || body === null) return undefined
  const { base = [], tempo = [] } = body as Record<string, unknown>
  const addresses = (list: unknown) =>
    Array.isArray(list) && list.every((item) => typeof item === 'string' && isAddress(item))
      ? (list as Address[])
      : undefined
  const baseAddresses = addresses(base)
  const tempoAddresses = addresses(tempo)
  return baseAddresses && tempoAddresses
    ? { base: baseAddresses, tempo: tempoAddresses }
    : undefined
}
