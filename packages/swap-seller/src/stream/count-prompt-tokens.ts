import type { ChatCompletionRequest } from '../completion/chat-completion-request.ts'
import type { TokenCounter } from './get-token-counter.ts'

/** OpenAI's chat framing: each message costs 3 tokens on top of its text, the reply's priming 3. */
const PER_MESSAGE = 3
const REPLY_PRIMING = 3

/**
 * Estimates a chat request's prompt tokens the way OpenAI's cookbook does:
 * the text of every message (string content, text parts, tool calls, name)
 * plus framing, plus the JSON of `tools`/`functions`. Images, audio and files
 * are not counted, so for them it is a lower bound.
 *
 * @example countPromptTokens(request, await getTokenCounter(request.model))
 */
export const countPromptTokens = (request: ChatCompletionRequest, count: TokenCounter): number => {
  let total = REPLY_PRIMING
  for (const message of request.messages) {
    total += PER_MESSAGE + count(message.role)
    for (const text of messageTexts(message)) total += count(text)
  }
  for (const name of ['tools', 'functions'] as const) {
    const definitions = request[name]
    if (definitions != null) total += count(JSON.stringify(definitions))
  }
  return total
}

const messageTexts = (message: Record<string, unknown>): string[] => {
  const texts: string[] = []
  const { content, name, tool_calls: toolCalls, function_call: functionCall } = message
  if (typeof content === 'string') texts.push(content)
  else if (Array.isArray(content))
    for (const part of content)
      if (typeof part === 'object' && part !== null && typeof part.text === 'string')
        texts.push(part.text)
  if (typeof name === 'string') texts.push(name)
  if (toolCalls != null) texts.push(JSON.stringify(toolCalls))
  if (functionCall != null) texts.push(JSON.stringify(functionCall))
  return texts
}
