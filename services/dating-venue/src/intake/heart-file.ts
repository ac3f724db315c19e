import { createHash } from 'node:crypto'
import { type SaleAnswer, type SaleOutcome, sellItem } from '@agents/payments'
import type { VenueDeps } from '../deps.ts'
import { type HeartFileFulfilment, heartFileItem } from './heart-file-item.ts'
import type { HeartFileBody } from './intake-schemas.ts'
import { type PrecheckProblem, precheckHeartFile } from './precheck-heart-file.ts'

export type SubmitHeartFileParameters = {
  body: HeartFileBody
  /** The paying request: its payment headers are read by the ledger. */
  request: Request
}

/**
 * POST /api/intake/heart-file after validation: the prechecks, then the
 * doc_submit sale (`heartFileItem`), which files the doc once per payment;
 * a retry of the same request with the same payment gets the same outcome
 * (the same heartFileId and, for a new owner, the same credential). The
 * route answers the outcome (`heartFileAnswer`).
 */
export const submitHeartFile = async (
  deps: VenueDeps,
  { body, request }: SubmitHeartFileParameters,
): Promise<PrecheckProblem | { ok: true; outcome: SaleOutcome<HeartFileFulfilment> }> => {
  const problem = precheckHeartFile(body)
  if (problem) return problem
  const { contactRef, ...rest } = body
  const outcome = await sellItem(deps, request, heartFileItem, {
    order: { ...rest, contactRefSealed: contactRef ? deps.sealer.seal(contactRef) : null },
    // The request as validated, hashed: the same payment may only ever file this doc.
    requestKey: `heart-file:${createHash('sha256').update(JSON.stringify(body)).digest('hex')}`,
  })
  return { ok: true, outcome }
}

/** How a filed doc is answered: the owner's credential unsealed, the first time only. */
export const heartFileAnswer =
  (deps: Pick<VenueDeps, 'sealer'>) =>
  ({ ownerCredentialSealed, ...filed }: HeartFileFulfilment): SaleAnswer => ({
    status: 200,
    body: {
      ...filed,
      ...(ownerCredentialSealed
        ? { ownerCredential: deps.sealer.open(ownerCredentialSealed) }
        : {}),
    },
  })
