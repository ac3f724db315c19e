const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/**
 * GET /chat: the human's page with the matchmaker. Sign in with the
 * browser's wallet (EIP-1193 `personal_sign` over an EIP-4361 message the
 * venue's nonce makes one-time), attest 18+ once, then talk; the counters
 * (free messages, credits, the holding tier) stay in view. No framework: a
 * small script under a per-response nonce (CSP), all text set with
 * `textContent`, nothing from the network ever parsed as HTML.
 */
export const chatPage = ({ nonce }: { nonce: string }) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>The matchmaker</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
button{font:inherit;padding:.5em 1.1em;border-radius:.4em;border:0;background:#6a3df0;color:#fff;cursor:pointer}
button[disabled]{opacity:.5;cursor:default}
#glance{display:flex;gap:1.5rem;flex-wrap:wrap;padding:.75rem 1rem;background:#f4f1ff;border-radius:.5rem;margin:1rem 0}
#glance div{min-width:8rem}#glance strong{display:block;font-size:1.4rem}
#log{border:1px solid #ddd;border-radius:.5rem;padding:1rem;min-height:12rem;max-height:28rem;overflow:auto}
.human{margin:.5rem 0;text-align:right}.matchmaker{margin:.5rem 0;color:#3b2a8a}.note{color:#8a5a00}
textarea{width:100%;box-sizing:border-box;font:inherit;padding:.5rem;border-radius:.4rem;border:1px solid #bbb}
[hidden]{display:none!important}
</style>
</head><body>
<h1>The matchmaker</h1>
<p>Talk with the venue's matchmaker: coaching, and help writing your dating doc. Adults only; no contact details, ever.</p>
<section id="signed-out">
<p><button id="sign-in" type="button">Sign in with your wallet</button></p>
</section>
<section id="attest" hidden>
<p><label><input id="adult" type="checkbox"> I am 18 or older.</label></p>
<p><button id="confirm-adult" type="button" disabled>Continue</button></p>
</section>
<section id="signed-in" hidden>
<div id="glance" aria-live="polite">
<div>Free messages today<strong id="free-left">-</strong><span id="free-per-day"></span></div>
<div>Credits<strong id="credits">-</strong><span id="credit-price"></span></div>
<div>Holding<strong id="holding">-</strong><span id="next-tier"></span></div>
</div>
<div id="log" role="log" aria-live="polite" aria-label="Conversation"></div>
<form id="ask">
<p><label for="message">Your message</label><br><textarea id="message" rows="3" maxlength="2000" required></textarea></p>
<p><button id="send" type="submit">Send</button> <button id="sign-out" type="button">Sign out</button></p>
</form>
</section>
<p id="status" role="status"></p>
<script nonce="${escapeHtml(nonce)}">
const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };
const post = (path, body) => fetch(path, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
}).then(async (response) => ({ status: response.status, body: await response.json().catch(() => ({})) }));

const show = (account) => {
  $('signed-out').hidden = Boolean(account);
  $('attest').hidden = !account || account.attested;
  $('signed-in').hidden = !account || !account.attested;
  if (!account) return;
  $('free-left').textContent = String(account.freeLeft);
  $('free-per-day').textContent = 'of ' + account.freePerDay + ' a day, reset 00:00 UTC';
  $('credits').textContent = String(account.credits);
  $('credit-price').textContent = account.creditsPerMessage + ' a message';
  $('holding').textContent = '$' + account.holdingUsd;
  $('next-tier').textContent = account.nextTier
    ? account.nextTier.freePerDay + ' a day with $' + account.nextTier.moreUsd + ' more'
    : 'the top tier';
};
const refresh = async () => {
  const response = await fetch('/api/chat/me', { cache: 'no-store' });
  show(response.ok ? await response.json() : null);
};
const say = (role, text) => {
  const line = document.createElement('p');
  line.className = role;
  line.textContent = text;
  $('log').append(line);
  $('log').scrollTop = $('log').scrollHeight;
};
const toHex = (text) => '0x' + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('');

$('sign-in').addEventListener('click', async () => {
  if (!window.ethereum) { status('No wallet found in this browser.'); return; }
  try {
    const [address] = await window.ethereum.request({ method: 'eth_requestAccounts' });
    const nonce = (await post('/api/chat/session/nonce')).body;
    const message = [
      nonce.domain + ' wants you to sign in with your Ethereum account:',
      address, '', nonce.statement, '',
      'URI: ' + nonce.uri, 'Version: 1', 'Chain ID: ' + nonce.chainId,
      'Nonce: ' + nonce.nonce, 'Issued At: ' + new Date().toISOString(),
    ].join('\\n');
    const signature = await window.ethereum.request({ method: 'personal_sign', params: [toHex(message), address] });
    const signedIn = await post('/api/chat/session', { message, signature });
    if (signedIn.status !== 200) { status('Sign-in failed: ' + (signedIn.body.reason || signedIn.body.error)); return; }
    status('');
    await refresh();
  } catch (error) {
    status('Sign-in was cancelled.');
  }
});
$('adult').addEventListener('change', () => { $('confirm-adult').disabled = !$('adult').checked; });
$('confirm-adult').addEventListener('click', async () => {
  const answer = await post('/api/chat/attest', { adult: true });
  if (answer.status !== 200) { status(answer.body.error || 'Could not save that.'); return; }
  await refresh();
});
$('ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = $('message').value.trim();
  if (!message) return;
  $('send').disabled = true;
  say('human', message);
  $('message').value = '';
  const answer = await post('/api/chat/ask', { message });
  $('send').disabled = false;
  if (answer.status === 200 && answer.body.answer) say('matchmaker', answer.body.answer);
  else if (answer.status === 200) say('note', 'That message was withheld by the safety check (' + answer.body.withheld + '). It counts as used.');
  else if (answer.status === 402) say('note', 'You have used today\\'s free messages and your credits. They reset at 00:00 UTC.');
  else say('note', answer.body.error || 'The matchmaker could not answer. Try again.');
  await refresh();
});
$('sign-out').addEventListener('click', async () => { await post('/api/chat/session/end'); await refresh(); });
refresh();
</script>
</body></html>
`
