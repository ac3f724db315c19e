import { loadConfig } from '@agents/service-kit'
import { expect, test } from 'vitest'
import { z } from 'zod'
import { IdpConfig, refineIdpConfig, toIdpClientParameters } from './idp-config.ts'

const problemsOf = (schema: z.ZodType, env: Record<string, string>) => {
  try {
    loadConfig(schema, env)
    return []
  } catch (error) {
    return (error as { problems: string[] }).problems
  }
}

test('default: no identity provider', () => {
  const config = loadConfig(IdpConfig, {})
  expect(config).toEqual({ IDP_TIMEOUT_MS: 10_000, IDP_API_VERSION: 'v3' })
  expect(toIdpClientParameters(config, 'https://venue.example')).toBeUndefined()
})

test('behavior: a base URL needs the key, the workflow and the webhook secret', () => {
  expect(problemsOf(IdpConfig, { IDP_BASE_URL: 'https://verification.didit.me' })).toEqual([
    'IDP_API_KEY: required when IDP_BASE_URL is set',
    'IDP_WORKFLOW_ID: required when IDP_BASE_URL is set',
    'IDP_WEBHOOK_SECRET: required when IDP_BASE_URL is set',
  ])
})

test('behavior: spread into a service schema with the refinement', () => {
  const Service = z
    .object({ PORT: z.string().default('3002'), ...IdpConfig.shape })
    .superRefine(refineIdpConfig)
  expect(problemsOf(Service, { IDP_BASE_URL: 'https://verification.didit.me' })).toHaveLength(3)
  const config = loadConfig(Service, {
    IDP_BASE_URL: 'https://verification.didit.me',
    IDP_API_KEY: 'key',
    IDP_WORKFLOW_ID: 'wf',
    IDP_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
    IDP_TIMEOUT_MS: '5000',
  })
  expect(toIdpClientParameters(config, 'https://venue.example/')).toEqual({
    baseUrl: 'https://verification.didit.me',
    apiKey: 'key',
    workflowId: 'wf',
    // The page for the human's browser, not the webhook (that URL is set at the provider).
    callbackUrl: 'https://venue.example/identity/done',
    timeoutMs: 5000,
    apiVersion: 'v3',
  })
})

test('behavior: the API version is v3 or v2', () => {
  const provider = {
    IDP_BASE_URL: 'https://verification.didit.me',
    IDP_API_KEY: 'key',
    IDP_WORKFLOW_ID: 'wf',
    IDP_WEBHOOK_SECRET: 'whsec-0123456789abcdef',
  }
  const v2 = loadConfig(IdpConfig, { ...provider, IDP_API_VERSION: 'v2' })
  expect(toIdpClientParameters(v2, 'https://venue.example')).toMatchObject({
    apiVersion: 'v2',
    callbackUrl: 'https://venue.example/identity/done',
  })
  expect(problemsOf(IdpConfig, { ...provider, IDP_API_VERSION: 'v1' })).toHaveLength(1)
})

test('behavior: the API key never goes over plain http to a remote host', () => {
  expect(problemsOf(IdpConfig, { IDP_BASE_URL: 'http://verification.didit.me' })).toContain(
    'IDP_BASE_URL: expected an https URL (http only on localhost)',
  )
  expect(problemsOf(IdpConfig, { IDP_WEBHOOK_SECRET: 'short' })).toHaveLength(1)
})
