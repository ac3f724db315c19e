import { createLogger, type RunningServer, serve } from '@agents/service-kit'
import type { SellerConfig } from './config.ts'
import { createSellerProxy, SERVICE_NAME } from './proxy/create-seller-proxy.ts'

export type StartSellerOptions = { handleSignals?: boolean }

/**
 * Builds the seller proxy from its config and listens. Used by main.ts and tests.
 *
 * @example const server = await startSeller(readConfig(), { handleSignals: true })
 */
export const startSeller = async (
  config: SellerConfig,
  { handleSignals = false }: StartSellerOptions = {},
): Promise<RunningServer> => {
  const logger = createLogger({ name: SERVICE_NAME, level: config.LOG_LEVEL })
  const app = createSellerProxy({
    hubJwksUrl: config.SELLER_HUB_JWKS_URL,
    endpoint: config.SELLER_ENDPOINT,
    ...(config.SELLER_HUB_ISSUER ? { issuer: config.SELLER_HUB_ISSUER } : {}),
    upstream: {
      baseUrl: config.SELLER_UPSTREAM_URL,
      apiKey: config.SELLER_UPSTREAM_API_KEY,
      completionTokensField: config.SELLER_UPSTREAM_TOKENS_FIELD,
      timeoutMs: config.SELLER_UPSTREAM_TIMEOUT_MS,
    },
    maxBodyBytes: config.SELLER_MAX_BODY_BYTES,
    logger,
  })
  const server = await serve(app, {
    port: config.SELLER_PORT,
    host: config.SELLER_HOST,
    logger,
    handleSignals,
  })
  logger.info({ url: server.url, endpoint: config.SELLER_ENDPOINT }, 'swap seller listening')
  return server
}
