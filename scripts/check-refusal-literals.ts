/**
 * An expected "no" has one shape, service-kit's `Refusal`, built by its
 * `refusal()`: a route then answers every one the same way (`answerOf`,
 * `refusalResponse`). This fails, naming the file and line, on a refusal
 * written by hand outside service-kit (`npm run lint`):
 * - an object with `ok: false`, a `status` and an `error`, or a type that
 *   says the same (an outbound call's `{ ok: false, reason, status }` is not one);
 * - an object with a numeric `status` and an `error` (`{ status: 409, error }`);
 * - an object with a `status` and a `body` that is an object with an `error`
 *   (`{ status: 403, body: { error } }`, payments' old `ProductRefusal`).
 * A route's own answer (`c.json({ error }, 400)`) is not a refusal and is not flagged.
 *
 * @example npx tsx scripts/check-refusal-literals.ts
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const nameOf = (name: ts.PropertyName | undefined) =>
  name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined

/** The properties of an object literal by name (shorthand and spread-free ones only). */
const propertiesOf = (node: ts.ObjectLiteralExpression) => {
  const properties = new Map<string, ts.Expression>()
  for (const property of node.properties) {
    if (ts.isPropertyAssignment(property)) {
      const name = nameOf(property.name)
      if (name) properties.set(name, property.initializer)
    } else if (ts.isShorthandPropertyAssignment(property)) {
      properties.set(property.name.text, property.name)
    }
  }
  return properties
}

const unwrap = (expression: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(expression) ||
  ts.isAsExpression(expression) ||
  ts.isSatisfiesExpression(expression)
    ? unwrap(expression.expression)
    : expression

const isFalse = (expression: ts.Expression | undefined) =>
  expression !== undefined && unwrap(expression).kind === ts.SyntaxKind.FalseKeyword

const isNumber = (expression: ts.Expression | undefined) =>
  expression !== undefined && ts.isNumericLiteral(unwrap(expression))

const whyLiteral = (node: ts.ObjectLiteralExpression): string | undefined => {
  const properties = propertiesOf(node)
  if (!properties.has('status')) return undefined
  if (isFalse(properties.get('ok')) && properties.has('error'))
    return '{ ok: false, status, error }'
  if (properties.has('error') && isNumber(properties.get('status'))) return '{ status, error }'
  const body = properties.get('body')
  if (body && ts.isObjectLiteralExpression(unwrap(body)))
    if (propertiesOf(unwrap(body) as ts.ObjectLiteralExpression).has('error'))
      return '{ status, body: { error } }'
  return undefined
}

const whyType = (node: ts.TypeLiteralNode): string | undefined => {
  const members = new Map<string, ts.TypeNode | undefined>()
  for (const member of node.members)
    if (ts.isPropertySignature(member)) {
      const name = nameOf(member.name)
      if (name) members.set(name, member.type)
    }
  const ok = members.get('ok')
  const isFalseType =
    ok !== undefined && ts.isLiteralTypeNode(ok) && ok.literal.kind === ts.SyntaxKind.FalseKeyword
  return isFalseType && members.has('status') && members.has('error')
    ? 'type { ok: false; status; error }'
    : undefined
}

/** Each hand-written refusal in a source text: `line: what`. */
export const refusalLiterals = (text: string, fileName = 'sample.ts'): string[] => {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    const why = ts.isObjectLiteralExpression(node)
      ? whyLiteral(node)
      : ts.isTypeLiteralNode(node)
        ? whyType(node)
        : undefined
    if (why) found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${why}`)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })

/** Every hand-written refusal under packages/*\/src and services/*\/src, service-kit's aside. */
export const checkRefusalLiterals = (base = root): string[] =>
  ['packages', 'services']
    .flatMap((parent) => readdirSync(join(base, parent)).map((name) => join(base, parent, name)))
    // The one place a refusal is built.
    .filter((tree) => tree !== join(base, 'packages', 'service-kit'))
    .flatMap((tree) => {
      try {
        return sourceFiles(join(tree, 'src'))
      } catch {
        return []
      }
    })
    .flatMap((file) =>
      refusalLiterals(readFileSync(file, 'utf8'), file).map(
        (found) => `${relative(base, file)}:${found}`,
      ),
    )

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = checkRefusalLiterals()
  if (problems.length) {
    console.error(
      `refusals written by hand: build them with service-kit's refusal(status, error, extras, headers):\n  ${problems.join('\n  ')}`,
    )
    process.exit(1)
  }
}
