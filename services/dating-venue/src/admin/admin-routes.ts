import type { App } from '@agents/service-kit'
import { ApiError, readJsonBody, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import type { VenueDeps } from '../deps.ts'
import { runBeat } from '../matchmaking/beat.ts'
import { documentRoute, jsonRequest, jsonResponses, SECURITY } from '../openapi.ts'
import { requireOperator } from './admin-auth.ts'

// Documented shapes; the handlers check them with the messages the spec names.
const BeatBody = z
  .object({ cycleId: SafeText.regex(/^[\w:.-]{1,80}$/).optional() })
  .openapi('Beat', { description: 'optional; an empty body runs a fresh cycle' })
const SettingsBody = z
  .object({
    key: z.enum(['cap', 'venue_open']),
    value: z.union([SafeText, z.number().int(), z.boolean()]),
  })
  .openapi('Setting')

/** The operator console's actions (more join in later issues: beat, broker). */
export const registerAdminRoutes = (app: App, deps: VenueDeps) => {
  const operator = requireOperator(deps.adminToken)
  app.use('/admin/*', operator)
  app.use('/admin', operator)
  const beatPath = documentRoute(app, {
    method: 'post',
    path: '/admin/actions/beat',
    summary: 'Runs a match beat now',
    security: SECURITY.operator,
    request: { body: jsonRequest(BeatBody) },
    responses: jsonResponses({ 409: 'a beat is running' }),
  })
  app.post(beatPath, async (c) => {
    const body = await readJsonBody(c)
    const given = (body as { cycleId?: unknown } | null)?.cycleId
    if (given !== undefined && (typeof given !== 'string' || !/^[\w:.-]{1,80}$/.test(given)))
      throw new ApiError(400, 'cycleId must be 1-80 characters of letters, digits, _ : . -')
    const cycleId = given as string | undefined
    const result = await runBeat(deps, cycleId ? { cycleId } : {})
    if (!result.ran) throw new ApiError(409, 'a beat is running; try again when it ends')
    return c.json(result.value)
  })
  const settingsPath = documentRoute(app, {
    method: 'post',
    path: '/admin/actions/settings',
    summary: 'Sets an operator setting (cap, venue_open)',
    security: SECURITY.operator,
    request: { body: jsonRequest(SettingsBody) },
    responses: jsonResponses(),
  })
  app.post(settingsPath, async (c) => {
    const body = (await readJsonBody(c)) as { key?: unknown; value?: unknown } | null
    if (typeof body !== 'object' || body === null || typeof body.key !== 'string')
      throw new ApiError(400, 'key not allowed')
    const value = await deps.settings.set(body.key, body.value)
    return c.json({ ok: true, key: body.key, value })
  })
}
