// The floor of any venue built this way: a bare node:http server in its own
// process that forwards each question to the chat model (the venue's own
// client, postJson) and answers JSON. No framework, session, credits, safety check or storage:
// what is left is the two HTTP exchanges a venue answer needs.
import { createServer } from 'node:http'
import { postJson } from '@agents/dating-venue/bench'

const model = process.env.MATCHMAKER_CHAT_URL ?? ''
const server = createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', async () => {
    const { message } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: string }
    const answered = await postJson(`${model}/chat/completions`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: message }] }),
      timeoutMs: 10_000,
    })
    const body = JSON.parse(answered.text) as { choices: Array<{ message: { content: string } }> }
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ ok: true, answer: body.choices[0]?.message.content }))
  })
})
server.listen(Number(process.env.PORT), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${process.env.PORT}`)
})
