import {
  ApiError,
  answerOf,
  document,
  errors,
  json,
  parseInput,
  readJsonBody,
} from '@agents/service-kit'
import { runBeat } from '../beat/beat.ts'
import { events } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { LIMIT } from '../limits/limit-defaults.ts'
import { venueJobMetrics } from '../metrics/venue-job-metrics.ts'
import { SECURITY } from '../openapi.ts'
import type { VenueApp } from '../venue-env.ts'
import { operatorOf, requireOperator } from '../wallet-session/operator-guard.ts'
import { ADMIN_ERRORS } from './admin-errors.ts'
import {
  BeatBody,
  BeatResult,
  BrokerBody,
  Brokered,
  SettingStored,
  SettingsBody,
  SettingsInput,
} from './admin-schemas.ts'
import { brokerIntroduction } from './broker.ts'

const OPERATOR_ERRORS = {
  401: ADMIN_ERRORS.operatorRequired,
  403: ADMIN_ERRORS.operatorNotRecognised,
  404: `${ADMIN_ERRORS.noConsole} (no VENUE_ADMIN_TOKEN or operator wallet configured)`,
  415: 'not JSON (no body and no Content-Type reads as {})',
}

/**
 * The operator console's actions: a beat now, a setting, brokering an
 * introduction. Bodies are read with `readJsonBody` (no body and no type
 * reads as `{}`, which the beat needs) and checked by their schemas.
 */
export const registerAdminRoutes = (app: VenueApp, deps: VenueDeps) => {
  // The one operator guard, passed with each route: it holds whatever was registered before
  // (an `app.use('/admin/*')` registered after a route never runs for it).
  const operator = requireOperator(deps)

  const beatPath = document(app, {
    method: 'post',
    path: '/admin/actions/beat',
    limit: LIMIT.write,
    summary: 'Runs a match beat now',
    security: SECURITY.operator,
    request: { body: json(BeatBody, 'optional cycle id') },
    responses: {
      200: json(BeatResult, 'the beat ran'),
      ...errors({
        400: ADMIN_ERRORS.badCycleId,
        ...OPERATOR_ERRORS,
        409: ADMIN_ERRORS.beatRunning,
      }),
    },
  })
  app.post(beatPath, operator, async (c) => {
    const { cycleId } = parseInput(BeatBody, await readJsonBody(c), ADMIN_ERRORS.badCycleId)
    const { beatDuration } = venueJobMetrics(deps.metrics)
    const started = performance.now()
    const result = await runBeat(deps, cycleId ? { cycleId } : {}).catch((error: unknown) => {
      beatDuration.observe({ outcome: 'failed' }, (performance.now() - started) / 1000)
      throw error
    })
    if (!result.ran) throw new ApiError(409, ADMIN_ERRORS.beatRunning)
    beatDuration.observe({ outcome: 'ok' }, (performance.now() - started) / 1000)
    await recordAction(deps, 'beat_run', {
      cycleId: result.value.cycleId,
      created: result.value.created,
      operator: operatorOf(c),
    })
    return c.json(result.value)
  })

  const settingsPath = document(app, {
    method: 'post',
    path: '/admin/actions/settings',
    limit: LIMIT.write,
    summary: 'Sets an operator setting (cap, unowned_share_pct, venue_open)',
    security: SECURITY.operator,
    request: { body: json(SettingsBody, 'the setting') },
    responses: {
      200: json(SettingStored, 'stored'),
      ...errors({
        400: `${ADMIN_ERRORS.keyNotAllowed} (with \`allowed\`), ${ADMIN_ERRORS.valueRequired}, or invalid value for <key>`,
        ...OPERATOR_ERRORS,
      }),
    },
  })
  app.post(settingsPath, operator, async (c) => {
    const { key, value } = parseInput(
      SettingsInput,
      await readJsonBody(c),
      ADMIN_ERRORS.keyNotAllowed,
    )
    const stored = await deps.settings.set(key, value)
    await recordAction(deps, 'setting_changed', { key, value: stored, operator: operatorOf(c) })
    return c.json({ ok: true, key, value: stored })
  })

  const brokerPath = document(app, {
    method: 'post',
    path: '/admin/actions/broker',
    limit: LIMIT.write,
    summary: 'The operator moves a committed couple to brokered',
    security: SECURITY.operator,
    request: { body: json(BrokerBody, 'the couple') },
    responses: {
      200: json(Brokered, 'brokered; intro_brokered recorded'),
      ...errors({
        400: ADMIN_ERRORS.coupleIdRequired,
        ...OPERATOR_ERRORS,
        404: `${ADMIN_ERRORS.noSuchCouple} (or no console)`,
        409: ADMIN_ERRORS.notCommitted('<state>'),
      }),
    },
  })
  app.post(brokerPath, operator, async (c) => {
    const body = parseInput(BrokerBody, await readJsonBody(c), ADMIN_ERRORS.coupleIdRequired)
    return c.json(answerOf(await brokerIntroduction(deps, { ...body, operator: operatorOf(c) })))
  })
}

/** An operator action's event, naming who acted (the console's recent events show it). */
const recordAction = (deps: VenueDeps, kind: string, detail: Record<string, unknown>) =>
  deps.database.db.insert(events).values({ kind, detail })
