/** The seller's own OpenAI-compatible provider. */
export type Upstream = {
  /** Base URL, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string
  /** The seller's key. Sent only to `baseUrl`, never to the hub or the buyer. */
  apiKey: string
  /** Longest wait for the upstream's whole answer. */
  timeoutMs?: number
}
