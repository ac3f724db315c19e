import { charge } from '@agents/payments'
import { ApiError } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'
import { eq } from 'drizzle-orm'
import { formatCredential, newSecret } from '../credentials/credentials.ts'
import { heartFiles, owners } from '../db/schema.ts'
import type { VenueDeps } from '../deps.ts'
import { Heart, heartProse } from '../heart/heart-schema.ts'
import { screenPersonalData } from '../safety/index.ts'

export const HeartFileBody = z
  .object({
    displayName: z.string().max(120).optional().openapi({ description: 'cosmetic' }),
    homeMarket: z.enum(['bay_area', 'nyc', 'other']).default('other'),
    activeMarket: z.enum(['bay_area', 'nyc', 'remote']).default('remote'),
    availableFor: z
      .string()
      .max(120)
      .optional()
      .openapi({ description: 'comma-separated meeting modes, e.g. "in-person,online"' }),
    researchOptin: z.enum(['none', 'aggregate', 'full']).default('none'),
    ageAttested: z.boolean().default(false).openapi({ description: 'must be true' }),
    contactRef: z
      .string()
      .max(200)
      .optional()
      .openapi({ description: 'private pointer; sealed at rest; shown only at the reveal' }),
    heart: Heart,
  })
  .strict()
  .openapi('HeartFile')
export type HeartFileBody = z.infer<typeof HeartFileBody>

/** doc_submit: 1.00 USDC. */
export const DOC_SUBMIT_PRICE = { amount: 1_000_000n }

/** The checks that come before any payment is asked: the adult attestation, then personal data. */
export const precheckHeartFile = (body: HeartFileBody) => {
  if (body.ageAttested !== true)
    throw new ApiError(422, 'adult-only venue: ageAttested must be true', { field: 'ageAttested' })
  const screened = [
    { path: ['heart'], found: screenPersonalData(heartProse(body.heart)).found },
    {
      path: ['displayName'],
      found: body.displayName ? screenPersonalData(body.displayName).found : [],
    },
    {
      path: ['availableFor'],
      found: body.availableFor ? screenPersonalData(body.availableFor).found : [],
    },
  ].filter((entry) => entry.found.length > 0)
  if (screened.length > 0)
    throw new ApiError(400, 'invalid heart-file', {
      issues: screened.map(({ path, found }) => ({
        code: 'personal_data',
        path,
        message: `personal data found: ${found.join(', ')}; contact details go in contactRef only`,
        found,
      })),
    })
}

/**
 * POST /api/intake/heart-file after validation: the prechecks, then the
 * doc_submit payment, then the doc is filed for the owner keyed by the
 * paying wallet (created on first payment, with its credential).
 */
export const submitHeartFile = async (deps: VenueDeps, request: Request, body: HeartFileBody) => {
  precheckHeartFile(body)
  const result = await charge(deps.payments, request, {
    price: DOC_SUBMIT_PRICE,
    resource: {
      url: '/api/intake/heart-file',
      description: 'doc_submit: file a dating doc (1.00 USDC)',
      outputSchema: { ownerId: 'integer', heartFileId: 'integer', tier: 'string' },
    },
    body: 'legacy-v1',
  })
  if (!result.paid) return result.response
  const wallet = result.receipt.payer.startsWith('0x')
    ? result.receipt.payer.toLowerCase()
    : result.receipt.payer
  const { secret, hash } = newSecret()
  const answer = await deps.database.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(owners)
      .values({ wallet, credentialHash: hash })
      .onConflictDoNothing({ target: owners.wallet })
      .returning({ id: owners.id, tier: owners.tier })
    const owner =
      created ??
      (
        await tx
          .select({ id: owners.id, tier: owners.tier })
          .from(owners)
          .where(eq(owners.wallet, wallet))
      )[0]!
    const [file] = await tx
      .insert(heartFiles)
      .values({
        ownerId: owner.id,
        displayName: body.displayName ?? null,
        homeMarket: body.homeMarket,
        activeMarket: body.activeMarket,
        availableFor: body.availableFor ?? null,
        researchOptin: body.researchOptin,
        ageAttested: body.ageAttested,
        contactRefSealed: body.contactRef ? deps.sealer.seal(body.contactRef) : null,
        heart: body.heart,
        paymentReference: result.receipt.reference,
      })
      .returning({ id: heartFiles.id })
    return {
      ownerId: owner.id,
      heartFileId: file!.id,
      tier: owner.tier,
      // Issued once, when the owner is created: it proves the owner on later calls.
      ...(created ? { ownerCredential: formatCredential('owner', owner.id, secret) } : {}),
    }
  })
  return result.withReceipt(Response.json(answer, { status: 200 }))
}
