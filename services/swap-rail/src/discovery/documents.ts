/** The prose entry points. `base` is the hub's public base URL. */

export const SKILL_VERSION = '0.2.0'

export const llmsTxt = (base: string) => `# Inference swap rail

> Sellers post model-inference capacity (in MTok), buyers post intents, the hub matches them.
> The buyer pays the gross price once, in USDC, to an on-chain split that pays the seller and
> the hub; the match then hands out a short-lived grant to call the seller's own endpoint.

- Skill (step by step, version ${SKILL_VERSION}): ${base}/skill.md
- OpenAPI 3.1: ${base}/openapi.json
- MCP tool server (Streamable HTTP, stateless): ${base}/mcp
  tools: swap_list_offers, swap_create_offer, swap_create_intent, swap_get_match, swap_pay_challenge
- Payment discovery: ${base}/.well-known/x402 (the sample 402: POST ${base}/v1/pay)
- Grant signing keys: ${base}/.well-known/jwks.json

## Rules
- Free: listing offers, posting offers and intents, reading matches.
- Paid: POST /v1/matches/{id}/pay (x402 USDC on Base eip155:8453 to the split, or MPP push on
  Tempo eip155:4217 with the seller's share as a split). The live 402 is authoritative.
- The hub never holds upstream provider keys and never signs payments. Sign with your own
  payment tool. Never put a private key in the tool server's configuration.
- Amounts on the wire: USDC atomic units as strings (6 decimals); prices as USD decimal strings.
- Limits: each route counts per client (RateLimit-Policy and RateLimit headers on every answer);
  a payTo and a client hold only so many open offers, a client only so many intents waiting or
  awaiting payment. Over one: 429 with Retry-After; wait that long, cancel an offer or pay a match.
`

export const skillMd = (base: string) => `---
name: swap-rail
version: ${SKILL_VERSION}
description: Buy or sell model-inference capacity on the swap rail at ${base}. One USDC payment to a split; a short-lived grant to call the seller.
---

# Inference swap rail (skill ${SKILL_VERSION})

Base URL: ${base}. Tools: the MCP server at ${base}/mcp, or plain HTTP (${base}/openapi.json).

**Never place a private key in this tool server's configuration, or send one to the hub.**
Payments are signed by your own payment-capable tool (an x402 or MPP client holding your wallet),
outside the hub. Upstream model provider keys stay with the seller and never reach the hub.

## Buyer loop
1. **List offers** (\`swap_list_offers\`, \`GET /v1/offers?model=...\`). Prefer an existing open offer;
   note its \`priceUsd\` (USD per MTok) and \`remainingMtok\`.
2. **Create an intent** (\`swap_create_intent\`, \`POST /v1/intents\`) with \`model\`, \`mtok\` (whole MTok)
   and \`maxPriceUsd\`. It is matched at once with the cheapest open offer that fits; otherwise it
   waits (\`match: null\`) until an offer arrives or it expires. Keep the match id secret: it is the
   capability that reads the grant.
3. **Fetch the pay challenge** (\`swap_pay_challenge\`, or a bare \`POST /v1/matches/{id}/pay\`): a 402
   with exactly one Base accept (the gross amount, payee = the match's split) and an MPP Tempo
   challenge (push mode, the seller's share as a split). Read it before signing.
4. **Settle it with your external signing tool**: x402 (\`PAYMENT-SIGNATURE\`) or MPP
   (\`Authorization: Payment\`), retrying the same POST. Pay within the window (\`payBy\`).
   A payment is used once; a second payment for a paid match is refused, not taken.
5. **Read the match** (\`swap_get_match\`, \`GET /v1/matches/{id}\`): once paid it carries \`grant\`:
   \`bearer\`, \`endpoint\`, \`model\`, \`mtok\`, \`expiresAt\`. Grants are short-lived; read the match
   again for a fresh one during the redemption window (\`redeemUntil\`). After it, re-match.
6. **Call the seller**: \`POST {grant.endpoint}/chat/completions\` with
   \`Authorization: Bearer {grant.bearer}\` and the grant's \`model\`. The seller meters tokens per
   match and refuses once its MTok are used.

## Seller loop
1. **Run a seller endpoint**: an OpenAI-compatible base URL over https that verifies grants
   against ${base}/.well-known/jwks.json (audience = your endpoint, exactly as offered) and meters
   per match. The reference seller (\`packages/swap-seller\`) does this in front of your own upstream
   key, which never leaves your machine.
2. **Check the book first** (\`swap_list_offers\`): do not post a redundant offer.
3. **Create an offer** (\`swap_create_offer\`, \`POST /v1/offers\`) with \`endpoint\`, \`payTo\`, \`model\`,
   \`mtok\` and \`priceUsd\`. Waiting intents that fit are matched at once.
4. **Get paid**: buyers pay your split (\`splitAddress\`, a 0xSplits v2 push split of your payTo and
   the hub's fee recipient) on Base; anyone may call \`distribute\` to pay it out. On Tempo your
   share arrives directly in the buyer's payment.
5. **Serve grants** until each match's MTok are used; refuse expired or foreign grants.
6. **Cancel** an open offer by signing \`Cancel swap-rail offer <id>\` (EIP-191) with payTo's
   wallet and posting the signature to \`POST /v1/offers/{id}/cancel\`. Offers also expire.
`
