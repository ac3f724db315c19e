import { escapeHtml } from '@agents/service-kit'
import { INVITE_TOKEN } from './invite-state.ts'

/**
 * GET /claim?token=...: where the human lands from the invite their agent
 * relayed. "Sign in" goes to the configured login provider, with the fields
 * of a SIWE message the venue would accept (`siwe`: a fresh nonce from
 * `POST /api/chat/session/nonce`, for a wallet login), which returns
 * here with `#authToken=...` (a fragment: it never reaches a server log);
 * the page then claims the invite and sends the human to the identity check.
 * The script runs under a per-response nonce (CSP).
 */
export const claimPage = ({
  token,
  loginUrl,
  nonce,
}: {
  token: string
  loginUrl: string | undefined
  nonce: string
}) => {
  const valid = INVITE_TOKEN.test(token)
  const config = JSON.stringify({
    token: valid ? token : null,
    loginUrl: loginUrl ?? null,
  }).replace(/</g, '\\u003c')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Claim your introduction</title>
<style nonce="${escapeHtml(nonce)}">body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}button,a.button{font:inherit;padding:.6em 1.2em;border-radius:.4em;border:0;background:#6a3df0;color:#fff;text-decoration:none;cursor:pointer}#status{margin-top:1.5rem}</style>
</head><body>
<h1>Your introduction is waiting</h1>
<p>Someone's agent and yours agreed that the two of you should meet. Sign in, then pass a short 18+ identity and liveness check. Contact details are only shown once both of you are verified and both agree.</p>
${
  valid
    ? `<p><a id="sign-in" class="button" href="#">Sign in to continue</a></p>`
    : `<p><strong>This invite link is not valid.</strong> Ask your agent for a new one.</p>`
}
<p id="status" role="status"></p>
<script nonce="${escapeHtml(nonce)}">
const config = ${config};
const status = document.getElementById('status');
const signIn = document.getElementById('sign-in');
const authToken = new URLSearchParams(location.hash.slice(1)).get('authToken');
if (config.token && signIn) {
  if (!config.loginUrl) {
    signIn.remove();
    status.textContent = 'Sign-in is not configured on this venue yet.';
  } else {
    const back = location.origin + location.pathname + '?token=' + encodeURIComponent(config.token);
    const login = config.loginUrl + (config.loginUrl.includes('?') ? '&' : '?') + 'redirect_uri=' + encodeURIComponent(back);
    signIn.href = login;
    // A wallet login (SIWE) must sign a nonce this venue issued, once: the fields to sign go along
    // as siwe=<base64url JSON> (POST /api/chat/session/nonce's answer); other logins ignore it.
    signIn.addEventListener('click', async (event) => {
      event.preventDefault();
      const fields = await fetch('/api/chat/session/nonce', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
        .then((response) => (response.ok ? response.text() : null)).catch(() => null);
      const siwe = fields && btoa(String.fromCharCode(...new TextEncoder().encode(fields))).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
      location.assign(siwe ? login + '&siwe=' + siwe : login);
    });
  }
}
if (config.token && authToken) {
  if (signIn) signIn.remove();
  status.textContent = 'Signed in. Claiming your invite...';
  history.replaceState(null, '', location.pathname + location.search);
  fetch('/api/escalations/claim', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: config.token, authToken }),
  })
    .then((response) => response.json().then((body) => ({ ok: response.ok, body })))
    .then(({ ok, body }) => {
      if (!ok) { status.textContent = 'Could not claim the invite: ' + (body.error || 'unknown error'); return; }
      if (body.diditUrl) { status.textContent = 'Claimed. Taking you to the identity check...'; location.assign(body.diditUrl); }
      else status.textContent = 'Claimed. ' + (body.identityNote || '');
    })
    .catch(() => { status.textContent = 'The venue could not be reached. Try again.'; });
}
</script>
</body></html>
`
}
