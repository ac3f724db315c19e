import { escapeHtml } from '@agents/service-kit'
import { siweSignInScript } from '../http/siwe-page-script.ts'
import { chatDocItem } from '../intake/submit-doc-item.ts'
import { itemPrice } from '../orders/paid-item-text.ts'
import { TOPUP_CREDITS, TOPUP_MESSAGES, topupItem } from '../orders/topup-item.ts'

/**
 * GET /chat: the human's page with the matchmaker. Sign in with the
 * browser's wallet (EIP-1193 `personal_sign` over an EIP-4361 message the
 * venue's nonce makes one-time), attest 18+ once, then talk; the counters
 * (free messages, credits, the holding tier) stay in view, and the recent
 * conversation comes back from the venue (`GET /api/chat/messages`) after a
 * reload or in a new session. Enter sends, Shift+Enter adds a line. No framework: a
 * small script under a per-response nonce (CSP), all text set with
 * `textContent`, nothing from the network ever parsed as HTML.
 */
export const chatPage = ({ nonce }: { nonce: string }) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>The matchmaker</title>
<style nonce="${escapeHtml(nonce)}">
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff;overflow-wrap:anywhere}
button{font:inherit;padding:.5em 1.1em;border-radius:.4em;border:0;background:#6a3df0;color:#fff;cursor:pointer}
button[disabled]{opacity:.5;cursor:default}
:focus-visible{outline:3px solid #1d1d1f;outline-offset:2px}
.check{display:inline-flex;align-items:center;gap:.6rem;min-height:44px;cursor:pointer}
.check input{width:24px;height:24px;margin:0;flex:none;accent-color:#6a3df0}
.hint,#log-note{color:#4a4a4f;font-size:.9rem;margin:.25rem 0}
#glance{display:flex;gap:1.5rem;flex-wrap:wrap;padding:.75rem 1rem;background:#f4f1ff;border-radius:.5rem;margin:1rem 0}
#glance div{min-width:8rem;flex:1 1 8rem}#glance strong{display:block;font-size:1.4rem}
#log{border:1px solid #ddd;border-radius:.5rem;padding:1rem;min-height:12rem;max-height:28rem;overflow:auto}
#log p{overflow-wrap:anywhere;white-space:pre-wrap}.human{margin:.5rem 0;text-align:right}.matchmaker{margin:.5rem 0;color:#3b2a8a}.note{color:#8a5a00}
#doc{margin-top:1.5rem;border-top:1px solid #ddd}#draft dt{font-weight:600;margin-top:.5rem}#draft dd{margin:0 0 0 1rem}
#review-status{font-weight:600}
.couple{border:1px solid #ddd;border-radius:.5rem;padding:.5rem 1rem;margin:.75rem 0}.turns p{margin:.25rem 0}
input[type=text]{width:100%;box-sizing:border-box;font:inherit;padding:.4rem;border-radius:.4rem;border:1px solid #bbb}
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
<p><label class="check" for="adult"><input id="adult" type="checkbox"> I am 18 or older.</label></p>
<p><button id="confirm-adult" type="button" disabled>Continue</button></p>
</section>
<section id="signed-in" hidden>
<div id="glance" aria-live="polite">
<div>Free messages today<strong id="free-left">-</strong><span id="free-per-day"></span></div>
<div>Credits<strong id="credits">-</strong><span id="credit-price"></span></div>
<div>Holding<strong id="holding">-</strong><span id="next-tier"></span></div>
</div>
<div id="log" role="log" aria-live="polite" aria-label="Conversation with the matchmaker" aria-describedby="log-note" tabindex="0"></div>
<p id="log-note"></p>
<form id="ask">
<p><label for="message">Your message</label><br><textarea id="message" rows="3" maxlength="2000" required aria-describedby="message-hint"></textarea></p>
<p id="message-hint" class="hint">Enter sends; Shift+Enter adds a new line.</p>
<p><button id="send" type="submit">Send</button> <button id="sign-out" type="button">Sign out</button></p>
</form>
<p><button id="top-up" type="button">Top up: ${TOPUP_CREDITS} credits (${TOPUP_MESSAGES} messages) for ${itemPrice(topupItem)}</button></p>
<section id="doc" aria-labelledby="doc-title">
<h2 id="doc-title">Your dating doc</h2>
<p id="draft-empty">Nothing drafted yet: answer the matchmaker's questions below.</p>
<dl id="draft"></dl>
<form id="interview">
<p><label for="interview-answer" id="question"></label><br><textarea id="interview-answer" rows="2" maxlength="2000" required aria-describedby="answer-hint"></textarea></p>
<p id="answer-hint" class="hint">Enter sends; Shift+Enter adds a new line.</p>
<p><button id="answer" type="submit">Answer</button></p>
</form>
<form id="submit-doc" hidden>
<p>Your draft is ready. Submitted, it is held for review: it meets nobody until the venue approves it. To enter, your wallet needs the 18+ attestation and a studio token holding worth $50.</p>
<p><label for="handle">Your handle on the floor</label><br><input id="handle" type="text" maxlength="64" required autocomplete="off"></p>
<p><label for="contact">Private contact pointer (optional: sealed, shown only to a verified match who agrees)</label><br><input id="contact" type="text" maxlength="200" autocomplete="off"></p>
<p><button id="submit" type="submit">Submit for review (${itemPrice(chatDocItem)})</button></p>
</form>
<p id="review-status" role="status" aria-live="polite"></p>
</section>
<section id="matches" aria-labelledby="matches-title" hidden>
<h2 id="matches-title">Your matches</h2>
<div id="couples"></div>
</section>
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
  showDoc(account);
  showMatches(account.escalation);
};
// The wallet's couples: partner handle, the courtship turns, intro consent, and the invite link once minted.
const line = (tag, text) => { const node = document.createElement(tag); node.textContent = text; return node; };
const showMatches = (escalation) => {
  const couples = (escalation && escalation.couples) || [];
  $('matches').hidden = couples.length === 0;
  const box = $('couples');
  box.replaceChildren();
  for (const couple of couples) {
    const card = document.createElement('div');
    card.className = 'couple';
    card.append(line('h3', couple.handle + ' and ' + couple.partner + ' (' + couple.state + ')'));
    const turns = document.createElement('div');
    turns.className = 'turns';
    card.append(turns);
    fetch('/api/couples/' + couple.id + '?personaId=' + couple.personaId, { cache: 'no-store' })
      .then((response) => response.ok ? response.json() : { turns: [] })
      .then((view) => { for (const turn of view.turns) turns.append(line('p', turn.author + ': ' + turn.body)); });
    if (couple.state !== 'brokered') {
      const form = document.createElement('form');
      const text = document.createElement('textarea');
      text.rows = 2; text.maxLength = 2000; text.required = true;
      text.setAttribute('aria-label', 'Your turn with ' + couple.partner);
      const send = line('button', couple.yourTurn ? 'Send your turn' : 'Waiting for ' + couple.partner);
      send.type = 'submit'; send.disabled = !couple.yourTurn;
      form.append(text, send);
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const answer = await post('/api/couples/' + couple.id + '/turns', { personaId: couple.personaId, body: text.value.trim() });
        status(answer.status === 201 ? 'Sent.' : answer.status === 202 ? 'Held by the safety check.' : (answer.body.error || 'Not sent.'));
        await refresh();
      });
      card.append(form);
    }
    if (couple.consented) card.append(line('p', couple.state === 'courting'
      ? 'You agreed to meet; waiting for ' + couple.partner + '.' : 'You both agreed to meet.'));
    else if (couple.state === 'courting' || couple.state === 'committed') {
      const consent = line('button', 'I would like to meet ' + couple.partner);
      consent.type = 'button';
      consent.addEventListener('click', async () => {
        const answer = await post('/api/couples/' + couple.id + '/intro-consent', { ownerId: escalation.ownerId });
        status(answer.status === 200 ? (answer.body.both ? 'You both agreed to meet.' : 'Consent given.') : (answer.body.error || 'Not saved.'));
        await refresh();
      });
      card.append(consent);
    }
    if (couple.invite) {
      const link = line('a', 'Claim your profile (one-time link)');
      link.href = couple.invite.url;
      const note = line('p', 'Your invite: sign in there with this same wallet. It expires ' + new Date(couple.invite.expiresAt).toLocaleString() + '. ');
      note.append(link);
      card.append(note);
    } else if ((couple.state === 'committed' || couple.state === 'brokered') && escalation.tier === 'agent_represented') {
      const mint = line('button', 'Get my invite');
      mint.type = 'button';
      mint.addEventListener('click', async () => {
        const answer = await post('/api/escalations/' + couple.id + '/invite');
        if (answer.status !== 200) status(answer.body.error || 'No invite yet.');
        await refresh();
      });
      card.append(mint);
    }
    box.append(card);
  }
};
const LABELS = { about: 'About', seeking: 'Seeking', relationship_intent: 'Looking for', values: 'Values',
  interests: 'Interests', dealbreakers: 'Dealbreakers', vibe: 'Vibe', logistics: 'Logistics' };
const REQUIRED = ['about', 'seeking', 'relationship_intent', 'values', 'interests'];
const showDoc = (account) => {
  const draft = account.draft || {};
  const list = $('draft');
  list.replaceChildren();
  for (const [field, label] of Object.entries(LABELS)) {
    if (draft[field] === undefined) continue;
    const term = document.createElement('dt');
    term.textContent = label;
    const value = document.createElement('dd');
    value.textContent = Array.isArray(draft[field]) ? draft[field].join(', ') : String(draft[field]);
    list.append(term, value);
  }
  $('draft-empty').hidden = list.childElementCount > 0;
  const review = account.review;
  // A doc in review or on the floor is settled: no more drafting or submitting until it is rejected.
  const open = !review || review.status === 'rejected' || review.status === 'withdrawn';
  $('interview').hidden = !open || !account.question;
  $('question').textContent = account.question || '';
  $('submit-doc').hidden = !open || !REQUIRED.every((field) => draft[field] !== undefined);
  $('review-status').textContent = review
    ? 'Your doc (' + review.handle + '): ' + review.status + (review.reason ? ' (' + review.reason + ')' : '')
    : '';
};
// The recent conversation the venue keeps for this wallet (sealed, for its retention window),
// shown once per sign-in before the box opens, so a reload or a new session loses nothing.
let historyShown = false;
const showHistory = async () => {
  const response = await fetch('/api/chat/messages', { cache: 'no-store' });
  if (!response.ok) return;
  const history = await response.json();
  $('log').replaceChildren(...history.messages.map((message) => {
    const node = line('p', message.text);
    node.className = message.role;
    return node;
  }));
  $('log').scrollTop = $('log').scrollHeight;
  $('log-note').textContent = (history.more ? 'Showing your last ' + history.limit + ' lines. ' : '')
    + 'Older messages are deleted after ' + history.retentionHours + ' hours.';
  historyShown = true;
};
const refresh = async () => {
  const response = await fetch('/api/chat/me', { cache: 'no-store' });
  const account = response.ok ? await response.json() : null;
  if (!account || !account.attested) {
    historyShown = false;
    $('log').replaceChildren();
  } else if (!historyShown) await showHistory();
  show(account);
};
const say = (role, text) => {
  const line = document.createElement('p');
  line.className = role;
  line.textContent = text;
  $('log').append(line);
  $('log').scrollTop = $('log').scrollHeight;
};
${siweSignInScript}

$('sign-in').addEventListener('click', async () => {
  if (!window.ethereum) { status('No wallet found in this browser.'); return; }
  try {
    const signedIn = await signInWithWallet('/api/chat/session/nonce', '/api/chat/session');
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
// Enter sends, Shift+Enter adds a line (not while an input method is composing).
const enterSends = (box, form, button) => box.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
  event.preventDefault();
  if (!button.disabled) form.requestSubmit();
});
enterSends($('message'), $('ask'), $('send'));
enterSends($('interview-answer'), $('interview'), $('answer'));
$('ask').addEventListener('submit', async (event) => {
  event.preventDefault();
  if ($('send').disabled) return;
  const message = $('message').value.trim();
  if (!message) return;
  $('send').disabled = true;
  say('human', message);
  $('message').value = '';
  const answer = await post('/api/chat/ask', { message });
  $('send').disabled = false;
  if (answer.status === 200 && answer.body.answer) say('matchmaker', answer.body.answer);
  else if (answer.status === 200) say('note', 'That message was withheld by the safety check (' + answer.body.withheld + '). It counts as used.');
  else if (answer.status === 402) say('note', 'You have used today\\'s free messages and your credits. They reset at 00:00 UTC, or top up to keep talking.');
  else say('note', answer.body.error || 'The matchmaker could not answer. Try again.');
  await refresh();
});
$('interview').addEventListener('submit', async (event) => {
  event.preventDefault();
  if ($('answer').disabled) return;
  const answer = $('interview-answer').value.trim();
  if (!answer) return;
  $('answer').disabled = true;
  say('human', answer);
  const turn = await post('/api/chat/draft', { answer });
  $('answer').disabled = false;
  if (turn.status === 200) {
    say(turn.body.accepted ? 'matchmaker' : 'note', turn.body.reply);
    if (turn.body.accepted) $('interview-answer').value = '';
  } else say('note', turn.body.error || 'That answer could not be saved. Try again.');
  await refresh();
});

// x402 v1 "exact" (EIP-3009): the wallet signs a USDC transfer authorization for the price the
// 402 names; the venue settles it. Nothing moves unless the human signs.
const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const chainOf = (network) => network.startsWith('eip155:') ? Number(network.slice(7))
  : ({ base: 8453, 'base-sepolia': 84532 })[network];
const signPayment = async (accepts) => {
  const option = (accepts || []).find((entry) => entry.scheme === 'exact' && chainOf(entry.network) && entry.extra && entry.extra.name);
  if (!option) throw new Error('no payment option this page can sign');
  const [from] = await window.ethereum.request({ method: 'eth_requestAccounts' });
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from, to: option.payTo, value: option.maxAmountRequired,
    validAfter: String(now - 600), validBefore: String(now + option.maxTimeoutSeconds),
    nonce: '0x' + Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, '0')).join(''),
  };
  const typed = {
    domain: { name: option.extra.name, version: option.extra.version, chainId: chainOf(option.network), verifyingContract: option.asset },
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }],
      TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }],
    },
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  };
  const signature = await window.ethereum.request({ method: 'eth_signTypedData_v4', params: [from, JSON.stringify(typed)] });
  return base64(JSON.stringify({ x402Version: 1, scheme: 'exact', network: option.network, payload: { signature, authorization } }));
};
/** POSTs; a 402 is paid from the signed-in wallet (it signs) and the request sent again with the payment. */
const paidPost = async (path, body) => {
  const first = await post(path, body);
  if (first.status !== 402 || !window.ethereum) return first;
  const payment = await signPayment(first.body.accepts);
  const response = await fetch(path, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-payment': payment }, body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => ({})) };
};

$('top-up').addEventListener('click', async () => {
  $('top-up').disabled = true;
  status('Topping up: your wallet asks you to sign the ${itemPrice(topupItem)} payment.');
  try {
    const answer = await paidPost('/api/chat/topup', {});
    status(answer.status === 200
      ? 'Topped up: ' + answer.body.credited + ' credits added (' + answer.body.messages + ' messages).'
      : (answer.body.error || 'The top-up did not go through.') + (answer.body.reason ? ' (' + answer.body.reason + ')' : ''));
  } catch (error) {
    status('The payment was not signed: nothing was charged.');
  }
  $('top-up').disabled = false;
  await refresh();
});
$('submit-doc').addEventListener('submit', async (event) => {
  event.preventDefault();
  const handle = $('handle').value.trim();
  const contact = $('contact').value.trim();
  $('submit').disabled = true;
  status('Submitting your doc: your wallet asks you to sign the ${itemPrice(chatDocItem)} payment.');
  try {
    const answer = await paidPost('/api/chat/submit-doc', contact ? { handle, contactRef: contact } : { handle });
    if (answer.status === 200) status('Submitted: your doc is held for review.');
    else if (answer.body.missing) status('Your draft still needs: ' + answer.body.missing.join(', ') + '.');
    else status((answer.body.error || 'The doc could not be submitted.') + (answer.body.reason ? ' (' + answer.body.reason + ')' : ''));
  } catch (error) {
    status('The payment was not signed: nothing was charged.');
  }
  $('submit').disabled = false;
  await refresh();
});
$('sign-out').addEventListener('click', async () => { await post('/api/chat/session/end'); await refresh(); });
refresh();
</script>
</body></html>
`
