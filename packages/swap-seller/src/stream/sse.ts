/** The line that ends an OpenAI completion stream. */
export const SSE_DONE = '[DONE]'

/** One Server-Sent Event carrying `data` (multi-line data joined by `\n`, as the spec says). */
export const encodeSseData = (data: string): string =>
  `${data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n')}\n\n`

/**
 * Splits a growing SSE text into the `data` of each complete event (events
 * end in a blank line; comments, `event:` and `id:` lines are dropped).
 * Returns the data found and the unfinished tail to keep for the next call.
 *
 * @example decodeSseData('data: {"a":1}\n\ndata: [DO') // { events: ['{"a":1}'], rest: 'data: [DO' }
 */
export const decodeSseData = (text: string): { events: string[]; rest: string } => {
  const blocks = text.split(/\r\n\r\n|\n\n|\r\r/)
  const rest = blocks.pop() ?? ''
  const events: string[] = []
  for (const block of blocks) {
    const data = block
      .split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    if (data.length > 0) events.push(data.join('\n'))
  }
  return { events, rest }
}
