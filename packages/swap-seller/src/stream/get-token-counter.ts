/** Counts the tokens of a piece of text in one model family's encoding. */
export type TokenCounter = (text: string) => number

const loaded = new Map<string, Promise<TokenCounter>>()

/**
 * The tokenizer for `model`'s family, from `gpt-tokenizer` (the BPE ranks
 * ship inside the package; nothing is downloaded): `cl100k_base` for GPT-4,
 * GPT-4 Turbo and GPT-3.5, `o200k_base` for every other model (GPT-4o, 4.1,
 * 5, the o-series, and non-OpenAI models, for which it is an estimate).
 * Each encoding is loaded once, on first use (about a second).
 *
 * @example const count = await getTokenCounter('gpt-4o-mini'); count('hello') // 1
 */
export const getTokenCounter = (model: string): Promise<TokenCounter> => {
  const encoding = encodingFor(model)
  let counter = loaded.get(encoding)
  if (!counter) {
    counter =
      encoding === 'cl100k_base'
        ? import('gpt-tokenizer/encoding/cl100k_base').then(({ countTokens }) => countTokens)
        : import('gpt-tokenizer/encoding/o200k_base').then(({ countTokens }) => countTokens)
    loaded.set(encoding, counter)
  }
  return counter
}

const CL100K = /^(gpt-4(?![o.])|gpt-3\.5|text-embedding)/i

/** The encoding name for a model id, ignoring a provider prefix such as `openai/`. */
const encodingFor = (model: string): 'cl100k_base' | 'o200k_base' =>
  CL100K.test(model.replace(/^.*\//, '')) ? 'cl100k_base' : 'o200k_base'
