import type { KeyObject } from 'node:crypto'
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { type JWTPayload, jwtVerify } from 'jose'

/** What CDP allows between a JWT's `nbf` and its `exp` (its SDKs sign for 120 s). */
const MAX_LIFETIME_SECONDS = 120

export type CdpJwtCheck = {
  /** The keys whose JWTs are accepted: `kid` -> public key. */
  keys: ReadonlyMap<string, KeyObject>
  method: string
  /** What the caller addressed (`api.cdp.coinbase.com`, `127.0.0.1:4021`). */
  host: string
  path: string
  /** Nonces already spent, with their expiry (seconds): a replayed JWT is refused. */
  spent?: Map<string, number>
}

export type CdpJwtVerdict =
  | { ok: true; kid: string; nonce: string; uris: string[]; expiresAt: number }
  | { ok: false; reason: string }

/**
 * Checks an `Authorization` header as Coinbase's API does for a secret API
 * key: `Bearer <JWT>`, signed (ES256 or EdDSA) by the key its `kid` names,
 * `iss: cdp`, `sub` the same key, `nbf` reached and `exp` not (at most
 * 120 s apart), a header `nonce` never seen before, and `uris` naming
 * this call: `"<METHOD> <host><path>"`.
 */
export const verifyCdpJwt = async (
  authorization: string | undefined,
  { keys, method, host, path, spent }: CdpJwtCheck,
): Promise<CdpJwtVerdict> => {
  const token = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization ?? '')?.[1]
  if (!token) return { ok: false, reason: 'no bearer JWT' }
  let payload: JWTPayload
  let header: { kid?: string; nonce?: unknown }
  try {
    ;({ payload, protectedHeader: header } = await jwtVerify(
      token,
      ({ kid }) => {
        const key = kid === undefined ? undefined : keys.get(kid)
        if (!key) throw new Error(`unknown key ${kid}`)
        return key
      },
      {
        issuer: 'cdp',
        algorithms: ['ES256', 'EdDSA'],
        typ: 'JWT',
        requiredClaims: ['sub', 'nbf', 'exp'],
      },
    ))
  } catch (error) {
    return { ok: false, reason: (error as Error).message }
  }
  const kid = header.kid!
  if (payload.sub !== kid) return { ok: false, reason: 'sub is not the key id' }
  if (payload.exp! - payload.nbf! > MAX_LIFETIME_SECONDS)
    return { ok: false, reason: `lives more than ${MAX_LIFETIME_SECONDS} s` }
  const uri = `${method} ${host}${path}`
  const uris = payload.uris
  if (!Array.isArray(uris) || !uris.includes(uri))
    return { ok: false, reason: `uris ${JSON.stringify(uris)} do not name ${uri}` }
  const nonce = header.nonce
  if (typeof nonce !== 'string' || nonce.length < 16) return { ok: false, reason: 'no nonce' }
  if (spent) {
    const now = Date.now() / 1000
    for (const [old, expiresAt] of spent) if (expiresAt < now) spent.delete(old)
    if (spent.has(nonce)) return { ok: false, reason: 'nonce already used' }
    spent.set(nonce, payload.exp!)
  }
  return { ok: true, kid, nonce, uris: uris as string[], expiresAt: payload.exp! }
}

export type CdpFacilitatorCall = {
  method: string
  path: string
  status: number
  kid?: string
  nonce?: string
  /** Why a call was refused (401). */
  refused?: string
}

export type StartCdpFacilitatorParameters = {
  /** The facilitator calls are forwarded to once their JWT passes (the devnet's: `devnet.facilitator.url`). */
  upstream: string
  /** The API keys whose JWTs are accepted (their public parts). */
  keys: readonly { id: string; publicKey: KeyObject }[]
  /** Where the facilitator lives under the host, as on CDP. */
  basePath?: string
  /** HTTPS with this certificate (trusted by clients through `NODE_EXTRA_CA_CERTS`); HTTP without. */
  tls?: { cert: string; key: string }
  /** The address to listen on; 127.0.0.1 by default. */
  address?: string
  /** The name clients reach it by, in its URL and the `uris` it expects; `address` by default. */
  hostname?: string
  /**
   * The `host[:port]` clients sign for when another proxy fronts this one
   * (the `uris` name what the client addressed); `hostname:port` by default.
   */
  publicHost?: string
}

export type CdpFacilitator = {
  /** The facilitator URL a service is configured with (`PAYMENTS_FACILITATOR_URL`). */
  url: string
  /** Every call so far, accepted or refused. */
  calls: () => CdpFacilitatorCall[]
  stop: () => Promise<void>
}

/**
 * A stand-in for Coinbase's CDP x402 facilitator: every call under
 * `basePath` must carry a CDP JWT that `verifyCdpJwt` accepts (else 401,
 * in CDP's error shape), and is then forwarded to a real facilitator
 * (`upstream`), whose answer it returns. Over HTTPS when given a
 * certificate.
 *
 * @example
 * const key = createCdpApiKey('ec')
 * const cdp = await startCdpFacilitator({ upstream: devnet.facilitator.url, keys: [key] })
 * // PAYMENTS_FACILITATOR_URL=cdp.url PAYMENTS_FACILITATOR_AUTH=cdp CDP_API_KEY_ID=key.id CDP_API_KEY_SECRET=key.secret
 */
export const startCdpFacilitator = async ({
  upstream,
  keys,
  basePath = '/platform/v2/x402',
  tls,
  address = '127.0.0.1',
  hostname = address,
  publicHost,
}: StartCdpFacilitatorParameters): Promise<CdpFacilitator> => {
  const publicKeys = new Map(keys.map((key) => [key.id, key.publicKey]))
  const spent = new Map<string, number>()
  const calls: CdpFacilitatorCall[] = []
  const target = upstream.replace(/\/$/, '')
  let port = 0

  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const method = incoming.method ?? 'GET'
    const path = new URL(incoming.url ?? '/', 'http://stand-in').pathname
    const reply = (status: number, body: string, call: Partial<CdpFacilitatorCall> = {}) => {
      calls.push({ method, path, status, ...call })
      outgoing.writeHead(status, { 'content-type': 'application/json' }).end(body)
    }
    if (!path.startsWith(`${basePath}/`))
      return reply(404, JSON.stringify({ errorType: 'not_found', errorMessage: path }))
    const verdict = await verifyCdpJwt(incoming.headers.authorization, {
      keys: publicKeys,
      method,
      host: publicHost ?? `${hostname}:${port}`,
      path,
      spent,
    })
    if (!verdict.ok) {
      return reply(
        401,
        JSON.stringify({ errorType: 'unauthorized', errorMessage: verdict.reason }),
        {
          refused: verdict.reason,
        },
      )
    }
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const answer = await fetch(`${target}${path.slice(basePath.length)}`, {
      method,
      headers: { 'content-type': incoming.headers['content-type'] ?? 'application/json' },
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    })
    reply(answer.status, await answer.text(), { kid: verdict.kid, nonce: verdict.nonce })
  }
  const listener = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    handle(incoming, outgoing).catch((error: Error) => {
      if (outgoing.headersSent) outgoing.destroy()
      else
        outgoing
          .writeHead(502, { 'content-type': 'application/json' })
          .end(JSON.stringify({ errorType: 'bad_gateway', errorMessage: error.message }))
    })
  }
  const server = tls ? createHttpsServer(tls, listener) : createHttpServer(listener)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, address, resolve)
  })
  port = (server.address() as AddressInfo).port
  return {
    url: `${tls ? 'https' : 'http'}://${hostname}:${port}${basePath}`,
    calls: () => [...calls],
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
