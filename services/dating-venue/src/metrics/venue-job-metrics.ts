import type { Metrics } from '@agents/service-kit'

/**
 * The venue's background work: how long each match beat this replica ran
 * took, scheduled or run by the operator (not the beats another replica held
 * the lock for), and each payment reconciler pass by outcome (`ran`, `skipped`: another
 * replica held the lock, `failed`).
 */
export const venueJobMetrics = (metrics: Metrics) => ({
  beatDuration: metrics.histogram(
    'venue_beat_duration_seconds',
    'Duration of the match beats this replica ran (scheduled or by the operator), by outcome (ok, failed)',
    ['outcome'],
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  ),
  reconcilerRuns: metrics.counter(
    'payment_reconciler_runs_total',
    'Payment reconciler passes on this replica, by outcome (ran, skipped: another replica held the lock, failed)',
    ['outcome'],
  ),
})
