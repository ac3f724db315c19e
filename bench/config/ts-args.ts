/**
 * The Node arguments that run a TypeScript file in a child process: none where
 * Node strips types itself (22.18+ and 24, as production runs the services;
 * about a third of the start-up CPU of tsx's loader), else tsx's loader (Node 20).
 */
export const TS_ARGS: readonly string[] = (process.features as { typescript?: unknown }).typescript
  ? []
  : ['--import', 'tsx']
