import fc from 'fast-check'
import {
  integerExamples,
  integerOutOfRange,
  paramExamples,
  paramText,
  stringExamples,
  stringWithNul,
} from './bad-values.ts'
import { listPositions, type Position } from './list-positions.ts'
import { listOperations, type OpenApiDocument, type WalkedOperation } from './openapi-operations.ts'
import { type Samples, sampleFromSchema } from './sample-from-schema.ts'
import {
  type Credential,
  clone,
  credentialHeaders,
  type Draft,
  draftTarget,
  validDraft,
} from './valid-request.ts'

export type { Credential }

export type WalkBadInputParameters = {
  /** The running server; its `/openapi.json` says what to walk. */
  baseUrl: string
  /** Valid values by field or param name, so that requests get past other checks. */
  samples?: Samples
  /** Samples for one operation (`'POST /api/boards/{board}'`), over `samples`. */
  operationSamples?: Record<string, Samples>
  /** A valid credential per security scheme the document names. */
  credentials?: Record<string, Credential>
  /** Generated bad values per position (and credential); each is one request. */
  runsPerPosition?: number
  skip?: (operation: WalkedOperation) => boolean
  seed?: number
}

export type WalkBadInputReturnType = {
  /** `METHOD /path` of every operation walked. */
  operations: string[]
  requests: number
  /**
   * The status of each operation's unchanged request per credential
   * (`'POST /api/report [credential]': 200`): shows how far valid requests get.
   */
  baseStatuses: Record<string, number>
  /** One line per position whose generated value got a 5xx or an error body without `error`. */
  failures: string[]
}

/** Puts `value` at the position, building the containers on the way from their schemas. */
const setAt = (
  document: OpenApiDocument,
  samples: Samples,
  body: unknown,
  position: Position,
  value: unknown,
) => {
  const root = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>
  let current: Record<string | number, unknown> = root
  position.pointer.forEach((key, index) => {
    if (index === position.pointer.length - 1) {
      current[key] = value
      return
    }
    let next = current[key]
    if (next === null || typeof next !== 'object') {
      const nextKey = position.pointer[index + 1]
      const sample =
        typeof nextKey === 'number'
          ? []
          : sampleFromSchema(
              document,
              samples,
              position.schemas[index + 1],
              typeof key === 'string' ? key : undefined,
            )
      next = sample !== null && typeof sample === 'object' ? clone(sample) : {}
      current[key] = next
    }
    current = next as Record<string | number, unknown>
  })
  return root
}

const valueAt = (body: unknown, pointer: Array<string | number>) =>
  pointer.reduce<unknown>(
    (value, key) =>
      value !== null && typeof value === 'object'
        ? (value as Record<string | number, unknown>)[key]
        : undefined,
    body,
  )

/**
 * Walks every operation of a running server's `/openapi.json` with values no
 * PostgreSQL column can hold: U+0000 inside every string (body positions,
 * path params, query params) and integers outside int4 (and negative ones)
 * at every integer position and as every param, without a credential and
 * with each valid one the operation accepts. Each position is a fast-check
 * property: the answer is never a 5xx, and an error answer is JSON with a
 * string `error`.
 *
 * @example
 * const { failures } = await walkBadInput({ baseUrl: server.url, samples: { board: 'seeking' } })
 * expect(failures).toEqual([])
 */
export const walkBadInput = async ({
  baseUrl,
  samples = {},
  operationSamples = {},
  credentials = {},
  runsPerPosition = 3,
  skip = () => false,
  seed,
}: WalkBadInputParameters): Promise<WalkBadInputReturnType> => {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument
  const operations = listOperations(document).filter((operation) => !skip(operation))
  const failures: string[] = []
  const baseStatuses: Record<string, number> = {}
  let requests = 0

  for (const operation of operations) {
    const label = `${operation.method} ${operation.path}`
    const named = { ...samples, ...operationSamples[label] }
    const baseDraft = (): Draft => validDraft(document, operation, named)

    const send = async (draft: Draft, scheme: string): Promise<number> => {
      const target = draftTarget(operation, draft)
      const body = operation.body === undefined ? undefined : JSON.stringify(draft.body)
      const proof = await credentialHeaders(scheme ? credentials[scheme] : undefined, {
        method: operation.method,
        path: target,
        body,
      })
      const response = await fetch(`${baseUrl}${target}`, {
        method: operation.method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...proof,
        },
        ...(body === undefined ? {} : { body }),
      })
      requests++
      const text = await response.text()
      const problem = (what: string) =>
        new Error(
          `${label} [${scheme || 'no credential'}] ${target} ${body ?? ''} -> ${response.status} ${what}: ${text.slice(0, 300)}`,
        )
      if (response.status >= 500) throw problem('server error')
      if (response.status >= 400) {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          throw problem('error body is not JSON')
        }
        if (typeof (json as { error?: unknown } | null)?.error !== 'string')
          throw problem('error body has no string `error`')
      }
      return response.status
    }

    const check = async (
      where: string,
      arbitrary: fc.Arbitrary<unknown>,
      examples: unknown[],
      apply: (draft: Draft, value: unknown) => void,
      scheme: string,
    ) => {
      const details = await fc.check(
        fc.asyncProperty(arbitrary, async (value) => {
          const draft = baseDraft()
          apply(draft, value)
          await send(draft, scheme)
        }),
        {
          numRuns: examples.length + runsPerPosition,
          examples: examples.map((example) => [example]),
          endOnFailure: true,
          ...(seed === undefined ? {} : { seed }),
        },
      )
      if (details.failed)
        failures.push(
          `${where}: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
        )
    }

    const positions = listPositions(document, operation.body)
    const schemes = operation.schemes.filter((scheme) => scheme === '' || credentials[scheme])
    for (const scheme of schemes) {
      try {
        baseStatuses[`${label} [${scheme || 'no credential'}]`] = await send(baseDraft(), scheme)
      } catch (error) {
        failures.push(`base request: ${(error as Error).message}`)
      }
      for (const param of [...operation.pathParams, ...operation.queryParams]) {
        const inPath = operation.pathParams.includes(param as (typeof operation.pathParams)[0])
        const valid = String(sampleFromSchema(document, named, param.schema, param.name))
        await check(
          `${inPath ? 'path' : 'query'} ${param.name}`,
          paramText(valid),
          paramExamples(valid),
          (draft, value) => {
            ;(inPath ? draft.params : draft.query)[param.name] = value as string
          },
          scheme,
        )
      }
      for (const position of positions) {
        const current = valueAt(baseDraft().body, position.pointer)
        const valid =
          typeof current === 'string'
            ? current
            : String(
                sampleFromSchema(
                  document,
                  named,
                  position.schemas[position.schemas.length - 1],
                  position.name,
                ),
              )
        await check(
          `body ${position.pointer.join('.')} (${position.kind})`,
          position.kind === 'string' ? stringWithNul(valid) : integerOutOfRange(),
          position.kind === 'string' ? stringExamples(valid) : integerExamples,
          (draft, value) => {
            draft.body = setAt(document, named, draft.body, position, value)
          },
          scheme,
        )
      }
    }
  }
  return {
    operations: operations.map((operation) => `${operation.method} ${operation.path}`),
    requests,
    baseStatuses,
    failures,
  }
}
