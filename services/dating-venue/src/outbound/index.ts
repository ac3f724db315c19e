export {
  OUTBOUND_FAILURES,
  type OutboundError,
  type OutboundFailure,
  type OutboundResult,
  type OutboundSuccess,
} from './outbound-result.ts'
export { type PostJsonOutboundOptions, postJsonOutbound, USER_AGENT } from './post-json-outbound.ts'
export {
  type LookupAll,
  lookupAll,
  type ResolvedAddress,
  type ResolvePublicAddressParameters,
  resolvePublicAddress,
} from './resolve-public-address.ts'
