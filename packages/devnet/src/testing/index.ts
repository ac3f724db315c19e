// `@agents/devnet/testing`: the chain tier's shared devnet. The global setup itself is
// `packages/devnet/src/testing/global-devnet.ts` (a path in the vitest config, not an import).
export type { DevnetDescriptor } from './devnet-descriptor.ts'
export { type SharedDevnetParameters, sharedDevnet } from './shared-devnet.ts'
