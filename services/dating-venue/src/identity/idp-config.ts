import { z } from 'zod'
import { HttpsOrLoopbackUrl } from './https-url.ts'
import { IDENTITY_DONE_PATH } from './identity-done-page.ts'
import type { CreateIdpClientParameters } from './idp-client.ts'
import { IDP_API_VERSIONS } from './idp-session-path.ts'

const fields = {
  /** e.g. https://verification.didit.me; unset = no identity provider configured. */
  IDP_BASE_URL: HttpsOrLoopbackUrl.optional(),
  /** Sent as `x-api-key` on session creation. */
  IDP_API_KEY: z.string().min(1).optional(),
  /** The provider's workflow (the 18+ ID + liveness check), sent as `workflow_id`. */
  IDP_WORKFLOW_ID: z.string().min(1).optional(),
  /** Verifies `X-Signature` on webhooks; short secrets make HMAC guessable. */
  IDP_WEBHOOK_SECRET: z.string().min(16).optional(),
  IDP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The session API: `v3` (Didit's current `POST /v3/session/`) or `v2`; same fields. */
  IDP_API_VERSION: z.enum(IDP_API_VERSIONS).default('v3'),
}

type IdpFields = z.output<z.ZodObject<typeof fields>>

/**
 * The cross-field rule of IdpConfig. Spreading `IdpConfig.shape` into another
 * schema drops refinements, so the service config must call this in its own
 * `superRefine`.
 */
export const refineIdpConfig = (config: IdpFields, context: z.RefinementCtx) => {
  if (!config.IDP_BASE_URL) return
  for (const key of ['IDP_API_KEY', 'IDP_WORKFLOW_ID', 'IDP_WEBHOOK_SECRET'] as const) {
    if (!config[key])
      context.addIssue({
        code: 'custom',
        path: [key],
        message: 'required when IDP_BASE_URL is set',
      })
  }
}

/**
 * The identity-provider settings, to spread into the service config
 * (`...IdpConfig.shape`, plus `refineIdpConfig` in its superRefine).
 */
export const IdpConfig = z.object(fields).superRefine(refineIdpConfig)
export type IdpConfig = z.infer<typeof IdpConfig>

/**
 * Client parameters from parsed IDP_* settings; `undefined` when no provider
 * is configured. `venueBaseUrl` is the venue's public address: the session's
 * `callback` is its page for the human's browser ({@link IDENTITY_DONE_PATH}),
 * not the webhook, whose URL is set at the provider.
 */
export const toIdpClientParameters = (
  config: IdpConfig,
  venueBaseUrl: string,
): CreateIdpClientParameters | undefined =>
  config.IDP_BASE_URL && config.IDP_API_KEY && config.IDP_WORKFLOW_ID
    ? {
        baseUrl: config.IDP_BASE_URL,
        apiKey: config.IDP_API_KEY,
        workflowId: config.IDP_WORKFLOW_ID,
        callbackUrl: `${venueBaseUrl.replace(/\/+$/, '')}${IDENTITY_DONE_PATH}`,
        timeoutMs: config.IDP_TIMEOUT_MS,
        apiVersion: config.IDP_API_VERSION,
      }
    : undefined
