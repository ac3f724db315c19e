import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

// Kept-alive connections, closed after 4 s idle (undici's default too): under
// the 5 s most servers keep an idle connection, so a reused one is rarely
// already closed by the other side.
const agentOptions = { keepAlive: true, timeout: 4_000 }
const agents = { 'http:': new HttpAgent(agentOptions), 'https:': new HttpsAgent(agentOptions) }
const send = { 'http:': httpRequest, 'https:': httpsRequest }

/** More than any chat answer the venue keeps (it caps answers at a few thousand characters). */
const MAX_RESPONSE_BYTES = 1_000_000

/**
 * POSTs a JSON body and reads the whole answer as text, over node:http with
 * kept-alive connections. Why not fetch: undici's fetch (WHATWG streams,
 * Request and Response objects, a separate write for the body) cost the
 * venue about 0.6 ms of CPU per model call, node:http about 0.1 ms
 * (bench/README.md, "Chat answers per second"). One deadline covers the
 * whole exchange; an answer over 1 MB, a timeout or a broken connection
 * rejects.
 */
export const postJson = (
  url: string,
  {
    headers,
    body,
    timeoutMs,
  }: { headers: Record<string, string>; body: string; timeoutMs: number },
) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const target = new URL(url)
    const protocol = target.protocol
    if (protocol !== 'http:' && protocol !== 'https:')
      return reject(new Error(`unsupported protocol ${protocol}`))
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      reject(error)
    }
    const timer = setTimeout(() => fail(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
    const request = send[protocol](target, {
      method: 'POST',
      agent: agents[protocol],
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    })
    request.on('error', fail)
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_RESPONSE_BYTES) fail(new Error('answer too large'))
        else chunks.push(chunk)
      })
      response.on('error', fail)
      response.on('close', () => {
        if (!response.complete) fail(new Error('connection closed mid-answer'))
      })
      response.on('end', () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })
      })
    })
    request.end(body)
  })
