/**
 * A full garbage collection where the process allows it (the index process
 * starts with --expose-gc; elsewhere this does nothing): memory held by small
 * wrappers (a run's packed copies, an old graph's native memory) is freed
 * before the next large allocation, which the collector alone would put off.
 */
export const collect = () => (globalThis as { gc?: () => void }).gc?.()
