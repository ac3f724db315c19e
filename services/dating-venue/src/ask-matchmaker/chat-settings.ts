/** The matchmaker's chat model (OpenAI-compatible `/v1/chat/completions`), when configured. */
export type ChatSettings = {
  url: string
  apiKey?: string | undefined
  model: string
  timeoutMs: number
  /** Told of each call to the model and how it went (`outbound_calls_total`). */
  onCall?: ((outcome: 'ok' | 'error') => void) | undefined
}
