import type { PaymentLedger } from '@agents/payments'

/**
 * The ledger with each call timed (milliseconds, by method name), so the
 * bench can say which of a paid request's ledger transitions costs what.
 */
export const timedLedger = (ledger: PaymentLedger, times: Map<string, number[]>): PaymentLedger =>
  new Proxy(ledger, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return async (...args: unknown[]) => {
        const started = performance.now()
        try {
          return await value.apply(target, args)
        } finally {
          const list = times.get(String(key)) ?? []
          list.push(performance.now() - started)
          times.set(String(key), list)
        }
      }
    },
  })
