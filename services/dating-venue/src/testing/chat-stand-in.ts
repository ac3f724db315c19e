import { createServer } from 'node:http'

export type ChatReply = { status: number; content?: string }

/**
 * A stand-in for an OpenAI-compatible chat model over real HTTP
 * (`POST {url}/chat/completions`): answers what the test sets, and keeps
 * what it was asked, so a test can check nothing private was sent.
 */
export const startChatStandIn = async () => {
  let reply: ChatReply = { status: 200, content: 'A kind and careful report.' }
  const asked: Array<{ messages: Array<{ role: string; content: string }> }> = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      try {
        asked.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      } catch {
        // A malformed request is still answered; the test reads `asked`.
      }
      response.statusCode = reply.status
      response.setHeader('content-type', 'application/json')
      response.end(
        JSON.stringify({ choices: [{ message: { role: 'assistant', content: reply.content } }] }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/v1`,
    asked,
    answer: (next: ChatReply) => {
      reply = next
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
export type ChatStandIn = Awaited<ReturnType<typeof startChatStandIn>>
