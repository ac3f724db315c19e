import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { expect, test } from 'vitest'
import { componentNameClashes } from './component-clashes.ts'

const Challenge = z.object({ error: z.string(), accepts: z.array(z.string()) }).openapi('Challenge')

const routeAnswering = (path: string, responses: Record<number, z.ZodType>) =>
  createRoute({
    method: 'post',
    path,
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, schema]) => [
        status,
        { description: status, content: { 'application/json': { schema } } },
      ]),
    ),
  })

test('behavior: a name registered by two different schemas is reported, even on one route', () => {
  const app = new OpenAPIHono()
  // The 502 named as the 402 by mistake: the generator would document it with the 402's schema.
  const Credited = z.object({ error: z.string(), credited: z.number() }).openapi('Challenge')
  app.openAPIRegistry.registerPath(routeAnswering('/report', { 402: Challenge, 502: Credited }))
  expect(componentNameClashes(app)).toEqual(['Challenge: registered by 2 different schemas'])
})

test('behavior: a clash nested in a field and across routes is reported', () => {
  const app = new OpenAPIHono()
  const Other = z.object({ code: z.number() }).openapi('Challenge')
  app.openAPIRegistry.registerPath(routeAnswering('/a', { 402: Challenge }))
  app.openAPIRegistry.registerPath(
    routeAnswering('/b', { 200: z.object({ items: z.array(Other).optional() }) }),
  )
  expect(componentNameClashes(app)).toEqual(['Challenge: registered by 2 different schemas'])
})

test('behavior: a named schema used as is and, elsewhere, nullable with its own description is a clash', () => {
  const app = new OpenAPIHono()
  app.openAPIRegistry.registerPath(routeAnswering('/a', { 402: Challenge }))
  app.openAPIRegistry.registerPath(
    routeAnswering('/b', {
      200: z.object({ challenge: Challenge.nullable().openapi({ description: 'or none' }) }),
    }),
  )
  expect(componentNameClashes(app)).toEqual(['Challenge: registered by 2 different schemas'])
})

test('default: one schema used by many routes, distinct names, and a named schema used only nullable are not clashes', () => {
  const app = new OpenAPIHono()
  const Grant = z.object({ bearer: z.string() }).openapi('Grant')
  app.openAPIRegistry.registerPath(
    routeAnswering('/c', { 200: z.object({ grant: Grant.nullable() }) }),
  )
  const Credited = z.object({ error: z.string(), credited: z.number() }).openapi('Credited')
  app.openAPIRegistry.registerPath(routeAnswering('/a', { 402: Challenge }))
  app.openAPIRegistry.registerPath(routeAnswering('/b', { 402: Challenge, 502: Credited }))
  expect(componentNameClashes(app)).toEqual([])
})
