import { escapeHtml } from '@agents/service-kit'

// JSON inside <script>: escaping `<` keeps `</script>` in a value from closing the tag.
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c')

/** The local issuer's sign-in page: one button that returns to the claim page with the token. */
export const renderLoginPage = ({
  subject,
  target,
  nonce,
}: {
  subject: string
  target: string
  /** The script's nonce (the page policy service-kit gives every HTML answer). */
  nonce: string
}) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Test sign-in</title></head>
<body>
<h1>Test identity provider</h1>
<p>You will be signed in as <code id="subject">${escapeHtml(subject)}</code>.</p>
<button id="sign-in" type="button">Sign in as test human</button>
<script nonce="${escapeHtml(nonce)}">
document.getElementById('sign-in').addEventListener('click', function () {
  window.location.href = ${scriptJson(target)}
})
</script>
</body>
</html>
`
