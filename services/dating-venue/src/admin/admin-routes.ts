import type { App } from '@agents/service-kit'
import { ApiError } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { runBeat } from '../matchmaking/beat.ts'
import { requireOperator } from './admin-auth.ts'

/** The operator console's actions (more join in later issues: beat, broker). */
export const registerAdminRoutes = (app: App, deps: VenueDeps) => {
  const operator = requireOperator(deps.adminToken)
  app.use('/admin/*', operator)
  app.use('/admin', operator)
  app.post('/admin/actions/beat', async (c) => {
    const text = await c.req.text()
    let cycleId: string | undefined
    if (text.trim()) {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new ApiError(400, 'malformed JSON body')
      }
      const given = (body as { cycleId?: unknown } | null)?.cycleId
      if (given !== undefined && (typeof given !== 'string' || !/^[\w:.-]{1,80}$/.test(given)))
        throw new ApiError(400, 'cycleId must be 1-80 characters of letters, digits, _ : . -')
      cycleId = given as string | undefined
    }
    const result = await runBeat(deps, cycleId ? { cycleId } : {})
    if (!result.ran) throw new ApiError(409, 'a beat is running; try again when it ends')
    return c.json(result.value)
  })
  app.post('/admin/actions/settings', async (c) => {
    let body: { key?: unknown; value?: unknown }
    try {
      body = (await c.req.json()) as typeof body
    } catch {
      throw new ApiError(400, 'malformed JSON body')
    }
    if (typeof body !== 'object' || body === null || typeof body.key !== 'string')
      throw new ApiError(400, 'key not allowed')
    const value = await deps.settings.set(body.key, body.value)
    return c.json({ ok: true, key: body.key, value })
  })
}
