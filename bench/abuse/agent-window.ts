/** One request of the well-behaved agent: which step, how long, what it got. */
export type Sample = {
  step: string
  ms: number
  status: number
  served: boolean
  /** The start of a refused answer's body, to say why. */
  detail?: string
}

export type Answer = { status: number; served: boolean; json: Record<string, unknown> }

/**
 * One request of the agent's loop: `served` when the status is one of
 * `expect` (default: any 2xx) and `check` (if any) accepts the JSON answer.
 * The body is read inside the timing.
 */
export type Call = (
  step: string,
  path: string,
  init?: {
    method?: string
    body?: unknown
    headers?: Record<string, string>
    expect?: number[]
    check?: (json: Record<string, unknown>) => boolean
  },
) => Promise<Answer>

/** What an agent does once per loop (`n` counts loops from 0). */
export type AgentLoop = (call: Call, n: number) => Promise<void>

/**
 * A `call` against `baseUrl` that sends `X-Forwarded-For: <forwardedFor>`
 * (the agent's own public address) and pushes every timing onto `samples`.
 */
export const createCall =
  (baseUrl: string, forwardedFor: string, samples: Sample[]): Call =>
  async (step, path, { method, body, headers = {}, expect, check } = {}) => {
    const started = performance.now()
    let status = 0
    let json: Record<string, unknown> = {}
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method: method ?? (body === undefined ? 'GET' : 'POST'),
        headers: {
          'x-forwarded-for': forwardedFor,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      status = response.status
      const text = await response.text()
      try {
        json = JSON.parse(text)
      } catch {}
    } catch (error) {
      json = { error: String(error) }
    }
    const ms = performance.now() - started
    const served =
      (expect ? expect.includes(status) : status >= 200 && status < 300) &&
      (check ? check(json) : true)
    samples.push({
      step,
      ms,
      status,
      served,
      ...(served ? {} : { detail: JSON.stringify(json).slice(0, 160) }),
    })
    return { status, served, json }
  }

/**
 * Runs `loop` one iteration after another for `seconds`, starting one every
 * `intervalMs` (at once when the previous one ran over): the agent's normal
 * pace, not as fast as it can. Returns its samples and how many loops ran.
 */
export const runAgentWindow = async ({
  baseUrl,
  forwardedFor,
  loop,
  seconds,
  intervalMs,
  firstLoop = 0,
}: {
  baseUrl: string
  forwardedFor: string
  loop: AgentLoop
  seconds: number
  intervalMs: number
  firstLoop?: number
}) => {
  const samples: Sample[] = []
  const call = createCall(baseUrl, forwardedFor, samples)
  const deadline = performance.now() + seconds * 1000
  let n = firstLoop
  while (performance.now() < deadline) {
    const started = performance.now()
    await loop(call, n++)
    const pause = intervalMs - (performance.now() - started)
    if (pause > 0)
      await new Promise((done) => setTimeout(done, Math.min(pause, deadline - performance.now())))
  }
  return { samples, loops: n - firstLoop, nextLoop: n }
}
