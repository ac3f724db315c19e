import type { LedgerTx } from './ledger/ledger.ts'
import type { LedgerRow } from './ledger/ledger-table.ts'
import type { PaymentsDeps } from './payments-deps.ts'
import { receiptFromChain } from './receipts.ts'
import type { ReconciledProduct } from './sale-product.ts'
import type { PaymentReceipt } from './types.ts'

export type ReconcileResult = {
  /** Rows looked at. */
  checked: number
  /** Money found moved (settle answers lost, or writes interrupted) and now delivered. */
  delivered: number
  /** Nothing moved and nothing can any more: released. */
  failed: number
  /** Still open: the chain cannot tell yet, or could not be asked. */
  open: number
}

/**
 * One pass over the ledger's unresolved rows. A row abandoned before its
 * settle call is failed; one whose settle call went out is resolved by the
 * chain (used: settled and delivered; expired unused: failed); a settled row
 * without its goods gets them. Run it under a lock that one replica holds.
 */
export const reconcilePayments = async (
  deps: PaymentsDeps,
  products: readonly ReconciledProduct[],
  { limit = 100 } = {},
): Promise<ReconcileResult> => {
  const byKind = new Map(products.map((product) => [product.kind, product]))
  const result: ReconcileResult = { checked: 0, delivered: 0, failed: 0, open: 0 }
  for (const row of await deps.ledger.unresolved(limit)) {
    result.checked++
    const product = byKind.get(row.kind)
    if (!product) {
      deps.logger?.error({ reference: row.reference, kind: row.kind }, 'no product for a payment')
      result.open++
      continue
    }
    try {
      result[await reconcileRow(deps, product, row)]++
    } catch (error) {
      deps.logger?.error({ err: error, reference: row.reference }, 'reconciling a payment failed')
      result.open++
    }
  }
  return result
}

const reconcileRow = async (
  deps: PaymentsDeps,
  product: ReconciledProduct,
  row: LedgerRow,
): Promise<'delivered' | 'failed' | 'open'> => {
  const { ledger } = deps
  const release =
    product.release && ((tx: LedgerTx) => product.release!(tx, row.order, row.reference))
  if (row.state === 'settled') {
    await deliver(deps, product, row.reference)
    return 'delivered'
  }
  if (row.state === 'claimed' && row.settleAttempts === 0) {
    // Its request died before sending anything to settle.
    await ledger.fail(row.reference, 'abandoned before settling', release, row)
    return 'failed'
  }
  const answer = await deps.chain.read(row.proof as never, row.createdAt)
  if (answer.status === 'used') {
    await ledger.markSettled(row.reference, receiptFromChain(row, answer.transaction))
    await deliver(deps, product, row.reference)
    deps.logger?.info({ reference: row.reference }, 'reconciled: settled on-chain, delivered')
    return 'delivered'
  }
  if (answer.final) {
    await ledger.fail(row.reference, 'not settled on-chain and expired', release, row)
    return 'failed'
  }
  if (row.state === 'settling')
    await ledger.markUnknown(row.reference, 'settle call abandoned', row)
  return 'open'
}

const deliver = (deps: PaymentsDeps, product: ReconciledProduct, reference: string) =>
  deps.ledger.deliver(reference, (tx, row) =>
    product.fulfil(tx, row.order, row.receipt as PaymentReceipt),
  )

/**
 * Runs the reconciler now and then every `intervalMs`, each pass under
 * `exclusive` (an advisory lock: one replica at a time). `stop` ends it.
 */
export const startReconciler = (
  deps: PaymentsDeps,
  products: readonly ReconciledProduct[],
  {
    intervalMs,
    exclusive,
  }: {
    intervalMs: number
    exclusive: <value>(work: () => Promise<value>) => Promise<{ ran: boolean; value?: value }>
  },
) => {
  const pass = async () => {
    try {
      const ran = await exclusive(() => reconcilePayments(deps, products))
      const value = ran.value
      if (value && (value.delivered || value.failed)) deps.logger?.info(value, 'payment reconciler')
      return value
    } catch (error) {
      deps.logger?.error({ err: error }, 'payment reconciler failed')
      return undefined
    }
  }
  let running = pass()
  const timer = setInterval(() => {
    running = running.then(pass)
  }, intervalMs)
  timer.unref()
  return {
    /** One pass now (tests, start-up), after any pass under way. */
    runNow: () => {
      running = running.then(pass)
      return running
    },
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
