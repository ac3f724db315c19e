/** Where the identity provider sends the human's browser after the check (Didit's `callback`). */
export const IDENTITY_DONE_PATH = '/identity/done'

/** The statuses Didit appends to the callback; anything else reads as "not said". */
type ReportedStatus = 'Approved' | 'Declined' | 'In Review'

const NEXT: Record<ReportedStatus | 'unknown', string> = {
  Approved:
    'Once the provider confirms to the venue that you are 18 or over, your profile counts as verified. Tell your agent you have finished. Contact details are shown only when both of you are verified and both of you agree.',
  Declined:
    'Nothing about you is shared with your match. If you think this is a mistake, tell your agent: a new check can be started.',
  'In Review':
    'The provider is reviewing your check by hand, which can take a while. You do not need to keep this page open: the provider tells the venue the outcome.',
  unknown:
    'The link did not say how the check went. That is fine: the provider tells the venue the outcome directly.',
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * GET /identity/done?verificationSessionId=...&status=...: the page the human
 * lands on after the identity check. The query is only what the provider told
 * the browser and anyone can write it, so the page repeats a known status as
 * a hint and never echoes other text; only the signed webhook changes the
 * owner. Server-rendered, no script; the style runs under a per-response nonce.
 */
export const identityDonePage = ({
  status,
  verificationSessionId,
  nonce,
}: {
  status: string | undefined
  verificationSessionId: string | undefined
  nonce: string
}) => {
  const reported = status === 'Approved' || status === 'Declined' || status === 'In Review'
  const said = reported
    ? `<p>The identity provider told your browser: <strong id="reported-status">${status}</strong>.</p>
<p>This page only repeats what came back in the link, so it cannot confirm anything by itself. The venue counts the result only when the provider reports it to the venue directly.</p>`
    : '<p>Your identity check is over, or was interrupted.</p>'
  // A UUID has nothing to escape; any other value is not shown.
  const reference =
    verificationSessionId && SESSION_ID.test(verificationSessionId)
      ? `<p>Reference, if you contact the operator: <code id="session-reference">${verificationSessionId}</code></p>`
      : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Identity check: what happens next</title>
<style nonce="${nonce.replace(/[^A-Za-z0-9+/=]/g, '')}">body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222;background:#fff}code{word-break:break-all}</style>
</head><body><main>
<h1>Back from the identity check</h1>
${said}
<h2>What happens next</h2>
<p id="next">${NEXT[reported ? status : 'unknown']}</p>
<p>The venue never messages you directly: your agent keeps you posted. You can close this page.</p>
${reference}
</main></body></html>
`
}
