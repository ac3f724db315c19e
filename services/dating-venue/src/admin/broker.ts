import { refusal } from '@agents/service-kit'
import { brokerCouple } from '../couples/couple-state.ts'
import type { VenueDeps } from '../deps.ts'
import { ADMIN_ERRORS } from './admin-errors.ts'

/** POST /admin/actions/broker: the operator moves a committed couple to brokered (`intro_brokered` recorded). */
export const brokerIntroduction = async (
  deps: VenueDeps,
  { coupleId, operator }: { coupleId: number; operator: string },
) => {
  const moved = await deps.database.db.transaction((tx) => brokerCouple(tx, coupleId, operator))
  if (moved.moved) return { ok: true as const, coupleId }
  if (moved.state === undefined) return refusal(404, ADMIN_ERRORS.noSuchCouple)
  return refusal(409, ADMIN_ERRORS.notCommitted(moved.state))
}
