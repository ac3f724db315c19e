export type ScriptedRequest = { url: string; method: string; body: unknown }
export type ScriptedAnswer = (request: ScriptedRequest) => Response | undefined

/**
 * Runs `build` with fetch replaced by a script: requests it answers get its
 * canned response and are recorded; any other request throws. For SDKs that
 * cannot build offline, this shows exactly what they would send.
 */
export const withScriptedNetwork = async <result>(
  answer: ScriptedAnswer,
  build: () => Promise<result>,
): Promise<{ result: result; requests: ScriptedRequest[] }> => {
  const original = globalThis.fetch
  const requests: ScriptedRequest[] = []
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init)
    const text = request.method === 'GET' ? '' : await request.text()
    const recorded = {
      url: request.url,
      method: request.method,
      body: text ? JSON.parse(text) : undefined,
    }
    const response = answer(recorded)
    if (!response) throw new Error(`network call attempted: ${request.method} ${request.url}`)
    requests.push(recorded)
    return response
  }) as typeof fetch
  try {
    return { result: await build(), requests }
  } finally {
    globalThis.fetch = original
  }
}

/** A JSON response with the content type SDKs check. */
export const jsonResponse = (body: unknown) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } })
