import { askItem } from './ask-matchmaker/ask-item.ts'
import { reportItem } from './compatibility/report-item.ts'
import { featuredItem } from './featured/featured-item.ts'
import { heartFileItem } from './intake/heart-file-item.ts'
import { chatDocItem } from './intake/submit-doc-item.ts'
import { topupItem } from './orders/topup-item.ts'

/**
 * Every item the venue sells, each declared once in its capability folder
 * (`definePaidItem`): what the reconciler delivers (`productsOf`, start.ts),
 * what `/skill`, `/llms-full.txt` and the MCP tools list, and what the
 * paid-item tests run through. Kept beside `app.ts` (the composition root):
 * it gathers capabilities that themselves use `orders/`.
 */
export const PAID_ITEMS = [
  heartFileItem,
  chatDocItem,
  reportItem,
  featuredItem,
  askItem,
  topupItem,
] as const
