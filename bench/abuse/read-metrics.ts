/**
 * The lines of a service's `GET /metrics` that say what its limits and
 * budgets did (`rate_limited_total`, `outbound_calls_total`, any `budget`
 * series); empty when the service has no metrics route or refuses the token.
 */
export const readMetrics = async (baseUrl: string, token: string) => {
  try {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.status !== 200) return []
    return (await response.text())
      .split('\n')
      .filter((line) => /^(rate_limited_total|outbound_calls_total|\w*budget\w*)[{ ]/.test(line))
  } catch {
    return []
  }
}
