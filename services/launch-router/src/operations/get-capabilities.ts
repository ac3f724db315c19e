import { refusal } from '@agents/service-kit'
import { IntentCode } from '../intent/intent-issue.ts'
import type { Matrix } from '../matrix/load-matrix.ts'

/** Everything an agent needs to write an intent for one pad; refused 422 `pad_unknown` otherwise. */
export const getCapabilities = (matrix: Matrix, { pad: id }: { pad: string }) => {
  const pad = matrix.byId.get(id)
  if (!pad) {
    return refusal(422, 'unknown pad', {
      errors: [
        {
          code: IntentCode.padUnknown,
          field: 'pad',
          message: 'unknown pad; list_pads returns the pad ids',
        },
      ],
    })
  }
  const salt = pad.kind === 'party-factory' ? pad.payload.salt : undefined
  return {
    pad: pad.id,
    name: pad.name,
    kind: pad.kind,
    status: pad.status,
    chains: pad.chains,
    notes: pad.notes,
    sources: pad.sources,
    knobs: pad.knobs,
    forbidden: pad.forbidden,
    rules: pad.rules ?? [],
    limits: {
      nameMaxLength: pad.limits?.nameMaxLength ?? 64,
      ...(pad.limits?.nameMaxBytes ? { nameMaxBytes: pad.limits.nameMaxBytes } : {}),
      symbolMaxLength: pad.limits?.symbolMaxLength ?? 16,
    },
    ...(pad.stockAllowlist ? { stockAllowlist: pad.stockAllowlist } : {}),
    ...(salt ? { salt } : {}),
    ...(pad.validFor ? { validFor: pad.validFor } : {}),
    ...(pad.airlockOwners ? { airlockOwners: pad.airlockOwners } : {}),
  }
}
