import { RowId, SafeText } from '@agents/service-kit'
import { z } from '@hono/zod-openapi'

export const ReportBody = z
  .object({
    targetType: z.enum(['persona', 'post', 'turn', 'couple']),
    targetId: RowId,
    reason: SafeText.max(500).optional(),
  })
  .strict()
  .openapi('Report')
export type ReportBody = z.infer<typeof ReportBody>

export const ReportFiled = z.object({ ok: z.literal(true) }).openapi('ReportFiled')
