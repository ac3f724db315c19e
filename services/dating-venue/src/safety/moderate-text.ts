import { z } from 'zod'

/** An OpenAI-compatible moderation endpoint; `url` is the API base (".../v1"). */
export const ModerationOptions = z.object({
  url: z.url({ protocol: /^https?$/ }),
  apiKey: z.string().min(1).optional(),
  model: z.string().min(1).default('omni-moderation-latest'),
  timeoutMs: z.number().int().positive().max(60_000).default(3_000),
})
export type ModerationOptions = z.input<typeof ModerationOptions>
export type ResolvedModerationOptions = z.output<typeof ModerationOptions>

// Only what the verdict needs; extra fields (category_scores, id, model) are ignored.
const ModerationResponse = z.object({
  results: z
    .array(
      z.object({
        flagged: z.boolean(),
        categories: z.record(z.string(), z.boolean().nullable()).default({}),
      }),
    )
    .min(1),
})

export type ModerateTextReturnType = {
  flagged: boolean
  /** The categories marked true, sorted; `['flagged']` when flagged without any. */
  categories: string[]
}

/** The endpoint timed out, failed, or answered something that is not a moderation result. */
export class ModerationUnavailableError extends Error {
  override name = 'ModerationUnavailableError'
}

/**
 * Sends one text to `POST {url}/moderations` and returns what it flagged.
 * Throws `ModerationUnavailableError` on timeout, non-2xx, or a malformed body:
 * the caller fails closed.
 *
 * @example
 * await moderateText({ fetch }, { ...ModerationOptions.parse({ url }), input: 'hello' })
 */
export const moderateText = async (
  { fetch }: { fetch: typeof globalThis.fetch },
  { url, apiKey, model, timeoutMs, input }: ResolvedModerationOptions & { input: string },
): Promise<ModerateTextReturnType> => {
  const endpoint = `${url.replace(/\/+$/, '')}/moderations`
  let body: unknown
  try {
    // One signal for the whole exchange: a server that sends headers and then
    // stalls the body is as unavailable as one that never answers.
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify({ model, input }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) {
      await response.body?.cancel()
      throw new ModerationUnavailableError(`moderation endpoint answered ${response.status}`)
    }
    body = JSON.parse(await response.text())
  } catch (error) {
    if (error instanceof ModerationUnavailableError) throw error
    throw new ModerationUnavailableError('moderation endpoint unreachable or unreadable', {
      cause: error,
    })
  }
  const parsed = ModerationResponse.safeParse(body)
  if (!parsed.success)
    throw new ModerationUnavailableError('moderation endpoint answered an unexpected body')
  const [result] = parsed.data.results
  if (!result?.flagged) return { flagged: false, categories: [] }
  const categories = Object.entries(result.categories)
    .filter(([, value]) => value === true)
    .map(([name]) => name)
    .sort()
  return { flagged: true, categories: categories.length > 0 ? categories : ['flagged'] }
}
