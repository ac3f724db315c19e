import {
  createLimits,
  type ForwardedTrust,
  type LimitPolicy,
  type LimitRequestsParameters,
  limitStoreFor,
} from '@agents/service-kit'
import { classifyRoute } from './classify-route.ts'
import { venueClientKey } from './client-key.ts'
import type { VenueLimitName } from './limit-defaults.ts'

export type CreateVenueLimitsParameters = {
  policies: Record<VenueLimitName, LimitPolicy>
  /** On PostgreSQL the counters live there (table `rate_limits`), shared by every replica. */
  database: { kind: 'pglite' | 'postgres'; client: unknown }
  trustForwardedFor: ForwardedTrust
}

/**
 * The venue's request limits, for `createApp`: each route's class, counted
 * per credential, chat session or operator when the route checks one, else
 * per address group; refused credentials count against `signin`.
 */
export const createVenueLimits = async ({
  policies,
  database,
  trustForwardedFor,
}: CreateVenueLimitsParameters): Promise<LimitRequestsParameters<VenueLimitName>> => ({
  limits: await createLimits({ service: 'dating-venue', policies, store: limitStoreFor(database) }),
  classify: classifyRoute,
  credentialOf: venueClientKey,
  credentialFailures: 'signin',
  trustForwardedFor,
})
