export {
  type CapCompletionTokensParameters,
  type CapCompletionTokensReturnType,
  type CompletionTokensField,
  capCompletionTokens,
} from './completion/cap-completion-tokens.ts'
export { ChatCompletionRequest } from './completion/chat-completion-request.ts'
export { CompletionRefusal } from './completion/completion-refusal.ts'
export type { Upstream } from './completion/upstream.ts'
export { readConfig, SellerConfig } from './config.ts'
export { TOKENS_PER_MTOK, TOKENS_REMAINING_HEADER } from './constants.ts'
export {
  BaseError,
  type BaseErrorParameters,
  GrantError,
  GrantReason,
  HubKeysUnavailableError,
} from './errors.ts'
export { getHubJwks } from './grant/get-hub-jwks.ts'
export {
  type Grant,
  GrantClaims,
  type GrantKeySource,
  type VerifyGrantErrorType,
  type VerifyGrantParameters,
  type VerifyGrantReturnType,
  verifyGrant,
} from './grant/verify-grant.ts'
export { createMemoryMeter } from './meter/create-memory-meter.ts'
export type { GrantMeter } from './meter/grant-meter.ts'
export {
  type CreateSellerProxyParameters,
  createSellerProxy,
  SERVICE_NAME,
  SERVICE_VERSION,
} from './proxy/create-seller-proxy.ts'
export {
  type GrantVariables,
  type RequireGrantOptions,
  requireGrant,
} from './proxy/require-grant.ts'
export {
  type ServeCompletionDeps,
  type ServeCompletionParameters,
  type ServeCompletionReturnType,
  serveCompletion,
} from './proxy/serve-completion.ts'
export {
  BASE_USDC,
  type RunSellerCommandReturnType,
  runSellerCommand,
  SELLER_COMMAND_USAGE,
} from './run-seller-command.ts'
export {
  type BuildCollectTransactionsParameters,
  buildCollectTransactions,
  type UnsignedTransaction,
} from './split/build-collect-transactions.ts'
export { getSellerOffers, HubOffer } from './split/get-seller-offers.ts'
export {
  CollectionProblem,
  type PlanCollectionDeps,
  type PlanCollectionParameters,
  type PlanCollectionReturnType,
  planCollection,
  type SplitPlan,
} from './split/plan-collection.ts'
export {
  predictSplitAddress,
  SPLIT_FACTORY,
  SPLIT_OWNER,
  SPLIT_SALT,
} from './split/predict-split-address.ts'
export {
  type SellerSplitParameters,
  SPLIT_TOTAL_ALLOCATION,
  type Split,
  sellerSplit,
} from './split/seller-split.ts'
export { splitShares } from './split/split-shares.ts'
export { type StartSellerOptions, startSeller } from './start-seller.ts'
export { countPromptTokens } from './stream/count-prompt-tokens.ts'
export { getTokenCounter, type TokenCounter } from './stream/get-token-counter.ts'
export {
  type MeterCompletionStreamParameters,
  meterCompletionStream,
  type StreamOutcome,
  type StreamUsage,
} from './stream/meter-completion-stream.ts'
export {
  type ServeCompletionStreamDeps,
  type ServeCompletionStreamReturnType,
  serveCompletionStream,
} from './stream/serve-completion-stream.ts'
