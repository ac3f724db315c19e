// Limits and budgets; what the abuser could take: seats, the book, salts.
const WANTED =
  /^(rate_limited_total|outbound_calls_total|\w*budget\w*|venue_seats_used|venue_seat_cap|swap_open_offers|salt_requests_total|salt_mining_seconds_total)[{ ]/

/**
 * The lines of a service's `GET /metrics` that say what its limits and
 * budgets did and what the shared resources hold (`WANTED`); empty when the
 * service has no metrics route or refuses the token.
 */
export const readMetrics = async (baseUrl: string, token: string) => {
  try {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    })
    if (response.status !== 200) return []
    return (await response.text()).split('\n').filter((line) => WANTED.test(line))
  } catch {
    return []
  }
}
