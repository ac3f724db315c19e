// The router as main.ts starts it, for the benches; BENCH_LIMITS=off builds
// it without request limits or the mining budget (startLaunchRouter's
// bench-only option, not a setting), to measure what they cost beside it.
import { benchConfig } from '@agents/bench-config'
import { readConfig } from '@agents/launch-router/config'
import { startLaunchRouter } from '@agents/launch-router/start'

await startLaunchRouter(readConfig(), {
  handleSignals: true,
  requestLimits: benchConfig.launchRouter.requestLimits,
})
