import { readFileSync } from 'node:fs'
import type { RunningServer } from '@agents/service-kit'
import { parser } from '@prometheus-io/lezer-promql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { startTestVenue } from '../../services/dating-venue/src/testing.ts'
import { readConfig as readRouterConfig } from '../../services/launch-router/src/config.ts'
import { startLaunchRouter } from '../../services/launch-router/src/start.ts'
import { startTestSwapRail } from '../../services/swap-rail/src/testing.ts'

// The alert rules the repository ships, checked against the services as they
// are: every rule parses as PromQL (Prometheus's own grammar), and every metric
// it selects is one a service really exports, read from each service's own
// GET /metrics (process metrics on, as in production), not from a list.

type Rule = {
  alert: string
  expr: string
  for?: string
  labels?: Record<string, string>
  annotations?: Record<string, string>
}
type RuleFile = { groups: Array<{ name: string; rules: Rule[] }> }

const root = new URL('../../', import.meta.url)
const rules = (
  parse(readFileSync(new URL('ops/prometheus/alerts.yml', root), 'utf8')) as RuleFile
).groups.flatMap((group) => group.rules)
const operations = readFileSync(new URL('docs/operations.md', root), 'utf8')

/** Series Prometheus writes itself for every target; no service exports them. */
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped'])

/** The metric names an expression selects, and whether it parsed without error. */
const selectedMetrics = (expr: string) => {
  const tree = parser.parse(expr)
  const names = new Set<string>()
  let errors = 0
  const cursor = tree.cursor()
  do {
    if (cursor.type.isError) errors += 1
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector')
      names.add(expr.slice(cursor.from, cursor.to))
  } while (cursor.next())
  return { names, errors }
}

/** The series names a Prometheus text exposition holds, from its `# TYPE` lines. */
const exposedNames = (text: string) => {
  const names = new Set<string>()
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (!name) continue
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`)
    else if (type === 'summary')
      for (const suffix of ['', '_sum', '_count']) names.add(`${name}${suffix}`)
    else names.add(name)
  }
  return names
}

/** A heading's anchor as GitHub writes it. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

const TOKEN = 'ops-alerts-test-metrics-token'
const servers: RunningServer[] = []
const exported = new Map<string, Set<string>>()

beforeAll(async () => {
  const env = { METRICS_TOKEN: TOKEN }
  const [router, rail, venue] = await Promise.all([
    startLaunchRouter(
      readRouterConfig({ PORT: '0', LOG_LEVEL: 'silent', MINER_THREADS: '1', ...env }),
    ),
    startTestSwapRail({ env }),
    // NODE_ENV=test turns the venue's process metrics off; production has them.
    startTestVenue({ env: { ...env, NODE_ENV: 'development' } }),
  ])
  const started = { 'launch-router': router, 'swap-rail': rail, 'dating-venue': venue }
  for (const [service, server] of Object.entries(started)) {
    servers.push(server)
    // One answer through the app, so that the request metrics have samples too.
    await fetch(`${server.url}/health`)
    const answer = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    expect(answer.status, service).toBe(200)
    exported.set(service, exposedNames(await answer.text()))
  }
}, 120_000)

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()))
})

describe('ops/prometheus/alerts.yml', () => {
  it('holds rules, each with a severity, a summary and a runbook section that exists', () => {
    expect(rules.length).toBeGreaterThan(10)
    const anchors = new Set(
      [...operations.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)),
    )
    for (const rule of rules) {
      expect(rule.alert, JSON.stringify(rule)).toMatch(/^[A-Z][A-Za-z0-9]+$/)
      expect(['info', 'warning', 'critical'], rule.alert).toContain(rule.labels?.severity)
      expect(rule.annotations?.summary, rule.alert).toBeTruthy()
      const [document, anchor] = (rule.annotations?.runbook ?? '').split('#')
      expect(document, rule.alert).toBe('docs/operations.md')
      expect(anchors, `${rule.alert}: runbook #${anchor}`).toContain(anchor)
    }
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length)
  })

  it('names in every expression only metrics a service exports on GET /metrics', () => {
    const all = new Set([...exported.values()].flatMap((names) => [...names]))
    // The process metrics are there (the event-loop rule needs them), so the
    // services ran as production runs them.
    expect(all).toContain('nodejs_eventloop_lag_p99_seconds')
    for (const rule of rules) {
      const { names, errors } = selectedMetrics(rule.expr)
      expect(errors, `${rule.alert}: PromQL does not parse`).toBe(0)
      expect(names.size, `${rule.alert}: selects no metric`).toBeGreaterThan(0)
      const unknown = [...names].filter((name) => !all.has(name) && !SCRAPE_SERIES.has(name))
      expect(unknown, `${rule.alert} names metrics no service exports`).toEqual([])
    }
  })

  it('covers what each service exports of its own (one rule at least per service)', () => {
    const named = new Set(rules.flatMap((rule) => [...selectedMetrics(rule.expr).names]))
    for (const [service, names] of exported) {
      const own = [...names].filter((name) =>
        [...exported].every(([other, theirs]) => other === service || !theirs.has(name)),
      )
      expect(
        own.some((name) => named.has(name)),
        `${service}: no rule on any of ${own.join(', ')}`,
      ).toBe(true)
    }
  })
})
