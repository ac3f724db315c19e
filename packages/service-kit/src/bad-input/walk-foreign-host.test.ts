import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { walkForeignHost } from './walk-foreign-host.ts'

// The control: a server that writes the host a request claims in every way the services'
// answers could (plain, in a header, base64 JSON, base64url inside a header, behind a
// credential), and one route that does not. The walk must name exactly the leaking ones.

const document = {
  openapi: '3.1.0',
  paths: {
    '/origin': { get: {} },
    '/paid': {
      post: {
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { item: { type: 'string' } },
                required: ['item'],
              },
            },
          },
        },
      },
    },
    '/link': { get: {} },
    '/mpp': { get: {} },
    '/secured': { get: { security: [{ bearer: [] }] } },
    '/clean': { get: {} },
  },
}

const base64 = (value: unknown, encoding: 'base64' | 'base64url') =>
  Buffer.from(JSON.stringify(value)).toString(encoding)

const answer = (request: IncomingMessage) => {
  const host = request.headers.host ?? ''
  const forwarded = String(request.headers['x-forwarded-host'] ?? '')
  switch (request.url) {
    case '/openapi.json':
      return { body: JSON.stringify(document) }
    case '/origin':
      return { body: `<a href="http://${host}/x">home</a>` }
    case '/paid':
      return {
        status: 402,
        headers: {
          'payment-required': base64({ resource: { url: `http://${host}/paid` } }, 'base64'),
        },
      }
    case '/link':
      return { headers: { link: `<https://${forwarded}/next>; rel="next"` } }
    case '/mpp':
      return {
        status: 402,
        headers: {
          'www-authenticate': `Payment id="1", request="${base64({ realm: host }, 'base64url')}"`,
        },
      }
    case '/secured':
      return request.headers.authorization === 'Bearer right'
        ? { body: JSON.stringify({ self: `https://${forwarded}/me` }) }
        : { status: 401, body: '{"error":"unauthorized"}' }
    case '/extra':
      return { body: `${host}` }
    default:
      return { body: 'ok' }
  }
}

let server: Server
let url: string
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const { status = 200, headers = {}, body = '' } = answer(request)
      response.writeHead(status, headers).end(body)
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((done) => server.close(() => done())))

test('behavior: every answer that names the claimed host is a leak, however it is encoded; a clean one is not', async () => {
  const { operations, statuses, leaks } = await walkForeignHost({
    baseUrl: url,
    credentials: { bearer: { authorization: 'Bearer right' } },
    requests: [{ method: 'GET', path: '/extra' }],
  })
  expect(operations).toEqual([
    'GET /origin',
    'POST /paid',
    'GET /link',
    'GET /mpp',
    'GET /secured',
    'GET /clean',
  ])
  expect(leaks.map((leak) => leak.split(' -> ')[0])).toEqual([
    'GET /origin [no credential]',
    'POST /paid [no credential]',
    'GET /link [no credential]',
    'GET /mpp [no credential]',
    'GET /secured [bearer]',
    'GET /extra',
  ])
  expect(statuses).toMatchObject({
    'GET /secured [no credential]': 401,
    'GET /clean [no credential]': 200,
  })
})
