import { checkBeneficiaries } from './check-beneficiaries.ts'
import { checkDynamicAuction, type KnobProblem } from './check-dynamic-auction.ts'
import { checkDynamicLiquidity } from './check-dynamic-liquidity.ts'
import { checkMulticurveLiquidity } from './check-multicurve-liquidity.ts'
import type { ChainId, KnobCheckName, Pad } from './pad.ts'

/**
 * Pad-specific rules in code, for arithmetic across knobs that the pad files'
 * rule language cannot state. A pad names the ones it runs in `checks`;
 * draft_intent reports each problem as `knob_invalid`.
 */
export const KNOB_CHECKS: Record<
  KnobCheckName,
  (
    pad: Pad,
    knobs: Record<string, unknown>,
    intent: { chainId: ChainId | undefined },
  ) => KnobProblem[]
> = {
  'doppler-dynamic-auction': checkDynamicAuction,
  'doppler-dynamic-liquidity': checkDynamicLiquidity,
  'doppler-beneficiaries': checkBeneficiaries,
  'doppler-multicurve-liquidity': checkMulticurveLiquidity,
}
