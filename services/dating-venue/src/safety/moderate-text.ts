import { z } from 'zod'
import { postOpenAiJson } from '../openai-api/openai-json.ts'

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

// One exchange with the endpoint for one input or an array of them: the results, in input order.
const requestModeration = async (
  fetch: typeof globalThis.fetch,
  { url, apiKey, model, timeoutMs }: ResolvedModerationOptions,
  input: string | readonly string[],
) => {
  let body: unknown
  try {
    const answered = await postOpenAiJson(
      { url, apiKey, timeoutMs },
      'moderations',
      { model, input },
      { fetch },
    )
    if (!answered.ok)
      throw new ModerationUnavailableError(`moderation endpoint answered ${answered.status}`)
    body = answered.body
  } catch (error) {
    if (error instanceof ModerationUnavailableError) throw error
    throw new ModerationUnavailableError('moderation endpoint unreachable or unreadable', {
      cause: error,
    })
  }
  const parsed = ModerationResponse.safeParse(body)
  const expected = typeof input === 'string' ? 1 : input.length
  // A result missing or extra would pair a verdict with the wrong text.
  if (!parsed.success || (typeof input !== 'string' && parsed.data.results.length !== expected))
    throw new ModerationUnavailableError('moderation endpoint answered an unexpected body')
  return parsed.data.results.slice(0, expected).map(flaggedOf)
}

const flaggedOf = (
  result: z.infer<typeof ModerationResponse>['results'][number],
): ModerateTextReturnType => {
  if (!result.flagged) return { flagged: false, categories: [] }
  const categories = Object.entries(result.categories)
    .filter(([, value]) => value === true)
    .map(([name]) => name)
    .sort()
  return { flagged: true, categories: categories.length > 0 ? categories : ['flagged'] }
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
  { input, ...options }: ResolvedModerationOptions & { input: string },
): Promise<ModerateTextReturnType> => (await requestModeration(fetch, options, input))[0]!

/**
 * Sends many texts in one call (`input` as an array; OpenAI answers `results`
 * in the same order) and returns what it flagged in each, in order. Throws
 * `ModerationUnavailableError` as `moderateText` does, and when the number of
 * results is not the number of texts. The caller keeps the array short (see
 * `createSafetyCheck`'s `batchSize`).
 *
 * @example
 * await moderateTexts({ fetch }, { ...ModerationOptions.parse({ url }), inputs: ['hi', 'hello'] })
 */
export const moderateTexts = async (
  { fetch }: { fetch: typeof globalThis.fetch },
  { inputs, ...options }: ResolvedModerationOptions & { inputs: readonly string[] },
): Promise<ModerateTextReturnType[]> =>
  inputs.length === 0 ? [] : requestModeration(fetch, options, inputs)
