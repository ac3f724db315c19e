import type { Devnet } from '@agents/devnet'
import type { AgentLoop } from './agent-window.ts'
import type { FloodKind } from './flood-requests.ts'
import type { ModelStandIn } from './model-stand-in.ts'

/** What a target's setup gets: the devnet, the model stand-in, this run's database. */
export type TargetContext = {
  devnet: Devnet
  standIn: ModelStandIn
  /** A fresh PostgreSQL database for this run, or undefined for PGlite. */
  databaseUrl: string | undefined
  /** A fresh PGlite data directory for this run. */
  dataDir: string
  /** Keeps this run's handles and names apart from other runs'. */
  tag: string
  /** The model name the rail's agent and flood use. */
  model: string
}

/** The well-behaved agent of one service, ready to loop. */
export type PreparedAgent = {
  loop: AgentLoop
  /** Figures read after the flood (e.g. the venue's admitted count), by name. */
  after?: () => Promise<Record<string, number | string>>
}

/** One service under test: how to start it, its agent, and its flood. */
export type Target = {
  service: 'dating-venue' | 'swap-rail' | 'launch-router'
  /** Whether it keeps state (a PostgreSQL run too when a database URL is set). */
  stateful: boolean
  flood: FloodKind
  /** What one 2xx answer to the flood gave the abuser. */
  floodTakes: string
  /** The agent's pause between loop starts, in ms (its normal pace). */
  intervalMs: number
  env: (context: TargetContext) => Record<string, string>
  prepare: (context: TargetContext, baseUrl: string, forwardedFor: string) => Promise<PreparedAgent>
}
