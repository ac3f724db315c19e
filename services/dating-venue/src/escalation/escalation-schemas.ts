import { RowId, RowIdParam, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

/** `:coupleId` of the escalation routes, as documented (parsed by parseCoupleId). */
export const EscalationParams = z.object({
  coupleId: RowIdParam.openapi({ param: { name: 'coupleId', in: 'path' }, example: 1 }),
})

/** Consent and identity sessions name the owner they act for; other fields are ignored. */
export const OwnerRef = z.object({ ownerId: RowId }).openapi('OwnerRef')

export const ClaimBody = z
  .object({
    token: SafeText.min(8).openapi({ description: 'the invite token (uuid)' }),
    authToken: SafeText.min(8).openapi({ description: 'the login token of the signed-in human' }),
  })
  .openapi('Claim')

export const BrokerBody = z.object({ coupleId: RowId }).openapi('Broker')
