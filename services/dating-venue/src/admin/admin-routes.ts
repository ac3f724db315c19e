import type { App } from '@agents/service-kit'
import { ApiError } from '@agents/service-kit'
import type { VenueDeps } from '../deps.ts'
import { requireOperator } from './admin-auth.ts'

/** The operator console's actions (more join in later issues: beat, broker). */
export const registerAdminRoutes = (app: App, deps: VenueDeps) => {
  const operator = requireOperator(deps.adminToken)
  app.use('/admin/*', operator)
  app.use('/admin', operator)
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
