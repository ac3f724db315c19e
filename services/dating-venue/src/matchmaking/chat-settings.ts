/** The matchmaker's chat model (OpenAI-compatible `/v1/chat/completions`), when configured. */
export type ChatSettings = {
  url: string
  apiKey?: string | undefined
  model: string
  timeoutMs: number
}
