import { LogLevel, loadConfig, Port } from '@agents/service-kit'
import { z } from 'zod'

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

/** The seller's environment, parsed once at boot; every problem is reported together. */
export const SellerConfig = z
  .object({
    SELLER_PORT: Port.default(3010),
    SELLER_HOST: z.string().min(1).default('127.0.0.1'),
    // The proxy serves /v1/chat/completions and buyers call {endpoint}/chat/completions,
    // so an endpoint not ending in /v1 would sell a URL that answers 404.
    SELLER_ENDPOINT: HttpUrl.refine((url) => /\/v1\/?$/.test(new URL(url).pathname), {
      error: 'must be the public base URL ending in /v1, e.g. https://seller.example/v1',
    }),
    SELLER_HUB_JWKS_URL: HttpUrl,
    SELLER_HUB_ISSUER: z.string().min(1).optional(),
    SELLER_UPSTREAM_URL: HttpUrl,
    SELLER_UPSTREAM_API_KEY: z.string().min(1),
    SELLER_UPSTREAM_TOKENS_FIELD: z
      .enum(['max_completion_tokens', 'max_tokens'])
      .default('max_completion_tokens'),
    SELLER_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
    SELLER_MAX_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(4 * 1024 * 1024),
    LOG_LEVEL: LogLevel.default('info'),
  })
  .superRefine((config, context) => {
    // The upstream key goes to SELLER_UPSTREAM_URL: pointing that at the hub
    // would hand the hub the seller's provider key.
    if (new URL(config.SELLER_UPSTREAM_URL).origin === new URL(config.SELLER_HUB_JWKS_URL).origin)
      context.addIssue({
        code: 'custom',
        path: ['SELLER_UPSTREAM_URL'],
        message: 'must not be on the hub: the upstream key is never sent to the hub',
      })
  })
export type SellerConfig = z.infer<typeof SellerConfig>

/** Reads `SellerConfig` from `env`; throws service-kit's `ConfigError` listing every problem. */
export const readConfig = (env: Record<string, string | undefined> = process.env) =>
  loadConfig(SellerConfig, env)
