// The router as main.ts starts it, for the benches; BENCH_LIMITS=off builds
// it without request limits or the mining budget, BENCH_HOT_PATH=off without
// its hot path (startLaunchRouter's bench-only options, not settings), to
// measure what they cost or save beside it.
import { benchConfig } from '@agents/bench-config'
import { readConfig } from '@agents/launch-router/config'
import { startLaunchRouter } from '@agents/launch-router/start'

await startLaunchRouter(readConfig(), {
  handleSignals: true,
  requestLimits: benchConfig.launchRouter.requestLimits,
  hotPath: benchConfig.launchRouter.hotPath,
})
