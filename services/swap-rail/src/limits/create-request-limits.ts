import {
  createLimits,
  type ForwardedTrust,
  type LimitPolicy,
  type LimitRequestsParameters,
  limitStoreFor,
} from '@agents/service-kit'
import { classifyRoute } from './classify-route.ts'
import type { RailLimitName } from './limit-defaults.ts'
import { matchCredentialOf } from './match-credential.ts'

export type CreateRequestLimitsParameters = {
  policies: Record<RailLimitName, LimitPolicy>
  /** The rail's database: on PostgreSQL the counters live there, shared by every replica. */
  database: { kind: 'pglite' | 'postgres'; client: unknown }
  trustForwardedFor: ForwardedTrust
}

/**
 * The rail's request limits, for `createApp`: each route's class
 * (`classifyRoute`), counted per match id on the match routes and per
 * address group elsewhere, with made-up match ids counted per address.
 */
export const createRequestLimits = async ({
  policies,
  database,
  trustForwardedFor,
}: CreateRequestLimitsParameters): Promise<LimitRequestsParameters<RailLimitName>> => ({
  limits: await createLimits({ service: 'swap-rail', policies, store: limitStoreFor(database) }),
  classify: classifyRoute,
  credentialOf: matchCredentialOf,
  credentialFailures: 'unknown-match',
  credentialFailureStatuses: [404],
  trustForwardedFor,
})
