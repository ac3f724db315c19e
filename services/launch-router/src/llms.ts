/** `GET /llms.txt`: how an agent uses the router, in Markdown. */
export const llmsTxt = (baseUrl: string) => `# Launch router

> Checks token-launch intents against a matrix of launch pads and builds the
> unsigned payload the user's own wallet signs. Free. It never holds a key,
> never signs, never broadcasts.

All operations are \`POST ${baseUrl}/api/v1/<operation>\` with a JSON body.
The same six are MCP tools at \`POST ${baseUrl}/mcp\`. OpenAPI 3.1: \`GET ${baseUrl}/openapi.json\`.

## Steps
1. \`list_pads\` with \`{}\`: every pad, its chains, status (\`wired\` or \`unproven\`) and notes. Call it first.
2. \`get_capabilities\` with \`{"pad": "<id>"}\`: the pad's knobs (types, constraints, whether it uses them),
   forbidden fields, chains and, for factory pads, the salt rule.
3. \`draft_intent\` with \`{"intent": {...}}\`: \`{ ok, errors, warnings, intent }\`. Fix every error; warnings
   (\`knob_ignored\`) do not block. The returned \`intent\` is normalised (checksummed EVM creator, numeric EVM chain id).
4. \`get_sign_payload\` (or \`simulate_launch\`, the same answer) with the intent: \`{ payload, warnings }\`.
   An intent with errors gets 422 with the same \`errors\` list.
5. Hand the payload to the user's wallet. The user signs and sends it. Nothing is broadcast by this service.

## The intent
\`{ "name", "symbol", "chainId", "pad", "creator", ...knobs }\`: knobs are top-level properties named as
get_capabilities lists them.
- \`creator\`: on EVM chains a 0x address (EIP-55 if mixed case); on \`solana:*\` chains the base58 public key of
  the signing wallet (32 bytes, on the ed25519 curve).
- Never send a salt (any field named salt, at any depth, is an error): the router mines it.
- \`RH_STOCK\` (a Robinhood stock ticker) is accepted only by the stock-pairing pad, and only for tickers on
  its pinned allowlist.
- Unproven pads cannot be launched.

## Payloads
- \`sdk-deploy\`: \`{ sdk: { package, version, call }, bigints, publicKeys?, config }\`: call the SDK with \`config\` from the
  user's wallet, after BigInt(value) at each path of \`config\` in \`bigints\` and new PublicKey(value) at each in
  \`publicKeys\` (dotted paths, \`*\` = every array item).
- \`simulate-api\`: \`{ request: { method, url, headers, body } }\` with \`body.simulateOnly: true\`; add your own API key header.
- \`party-factory\`: \`{ to, functionName, args, data, value, salt: { value, rule, deployer, initCodeHash, predictedAddress, iterations } }\`:
  a transaction to \`to\` with \`data\` and \`value\` (wei); the token will be created at \`predictedAddress\`.

## Errors
JSON \`{ "error": "..." }\`: 400 malformed body (with zod \`issues\`), 413 too large, 415 not JSON,
422 unknown pad or intent errors, 503 salt mining over its time budget (retry).
429 over a limit of your address (\`limit\` names it; wait \`Retry-After\` seconds): \`read\` counts every call
(REST or MCP), \`mining\` the worker time of newly mined salts; the \`RateLimit\` header on every answer says
what is left. Asking again for an intent answered recently costs no mining (its salt is remembered).
`
