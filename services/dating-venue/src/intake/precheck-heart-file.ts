import { type Refusal, refusal } from '@agents/service-kit'
import { heartProse } from '../heart/heart-schema.ts'
import { screenPersonalData } from '../safety/index.ts'
import { INTAKE_ERRORS } from './intake-errors.ts'
import type { HeartFileBody } from './intake-schemas.ts'

export type PrecheckProblem = Refusal<400 | 422>

/** The checks that come before any payment is asked: the adult attestation, then personal data. */
export const precheckHeartFile = (body: HeartFileBody): PrecheckProblem | undefined => {
  if (body.ageAttested !== true)
    return refusal(422, INTAKE_ERRORS.adultOnly, { field: 'ageAttested' })
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
  if (screened.length === 0) return undefined
  return refusal(400, INTAKE_ERRORS.invalidHeartFile, {
    issues: screened.map(({ path, found }) => ({
      code: 'personal_data',
      path,
      message: INTAKE_ERRORS.personalData(found),
      found,
    })),
  })
}
