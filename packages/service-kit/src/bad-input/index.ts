export { integerOutOfRange, paramText, stringWithNul } from './bad-values.ts'
export { listPositions, type Position } from './list-positions.ts'
export {
  type JsonSchema,
  listOperations,
  type OpenApiDocument,
  resolveSchema,
  type WalkedOperation,
} from './openapi-operations.ts'
export { type Samples, sampleFromSchema } from './sample-from-schema.ts'
export {
  type WalkAnswerHeadersParameters,
  type WalkAnswerHeadersReturnType,
  walkAnswerHeaders,
} from './walk-answer-headers.ts'
export {
  type Credential,
  type WalkBadInputParameters,
  type WalkBadInputReturnType,
  walkBadInput,
} from './walk-bad-input.ts'
export {
  type WalkDeepInputParameters,
  type WalkDeepInputReturnType,
  walkDeepInput,
} from './walk-deep-input.ts'
export {
  answerText,
  FOREIGN_HOST,
  type ForeignHostRequest,
  type HostAnswer,
  hostNamed,
  mcpToolCall,
  sendRaw,
  type WalkForeignHostParameters,
  type WalkForeignHostReturnType,
  walkForeignHost,
} from './walk-foreign-host.ts'
