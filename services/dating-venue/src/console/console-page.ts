import { escapeHtml } from '@agents/service-kit'
import { siweSignInScript } from '../http/siwe-page-script.ts'

/**
 * GET /admin: the console an operator keeps open all day. A shell with no
 * data in it: the numbers come from /admin.json, the queue from
 * /admin/queue, the chart from /admin/trends, all behind the operator
 * guard. Sign-in is Sign-In with Ethereum from the browser's wallet
 * (EIP-1193 `personal_sign`). A small script under a per-response nonce
 * (CSP); all text set with `textContent`, nothing parsed as HTML.
 */
export const consolePage = ({ nonce }: { nonce: string }) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Venue console</title>
<style nonce="${escapeHtml(nonce)}">
body{font:15px/1.45 system-ui,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;color:#1d1d1f}
h1{margin:.2rem 0}h2{margin:1.6rem 0 .5rem;font-size:1.15rem}
button{font:inherit;padding:.3em .9em;border-radius:.35em;border:1px solid #5a35d0;background:#6a3df0;color:#fff;cursor:pointer}
button.quiet{background:#fff;color:#5a35d0}button+button{margin-left:.35rem}
#numbers{display:grid;grid-template-columns:repeat(auto-fill,minmax(10.5rem,1fr));gap:.6rem}
.tile{background:#f4f1ff;border-radius:.5rem;padding:.55rem .75rem}.tile strong{display:block;font-size:1.35rem}
.tile small{color:#555}
#charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
figure{margin:0}figcaption{font-weight:600}svg{display:block;width:100%;height:auto}svg rect{fill:#6a3df0}
.axis{display:flex;justify-content:space-between;font-size:.875rem;color:#555}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e3e3e3;padding:.3rem .4rem;text-align:left;vertical-align:top}
#events td:first-child{white-space:nowrap}#events td:last-child{overflow-wrap:anywhere}
.empty{color:#595959}#status{min-height:1.4em;font-weight:600}
input,select{font:inherit;padding:.25rem .4rem}
#operator,#order p{overflow-wrap:anywhere}#order-query{width:min(100%,34rem);box-sizing:border-box}
[hidden]{display:none!important}
</style>
</head><body>
<header><h1>Venue console</h1><p id="status" role="status" aria-live="polite"></p></header>
<section id="signed-out" hidden>
<p>Operators sign in with an allow-listed wallet.</p>
<p><button id="sign-in" type="button">Sign in with your wallet</button></p>
</section>
<main id="console" hidden>
<p>Signed in as <span id="operator">an operator</span>. <button id="sign-out" class="quiet" type="button">Sign out</button> <button id="reload" class="quiet" type="button">Refresh</button></p>
<h2>At a glance</h2>
<div id="numbers" aria-live="polite"></div>
<h2>The last 14 days</h2>
<div id="charts"></div>
<h2>Actions</h2>
<p><button id="beat" type="button">Run a match beat</button></p>
<form id="settings"><label>Setting <select id="setting-key"><option value="cap">cap</option><option value="unowned_share_pct">unowned_share_pct</option><option value="venue_open">venue_open</option></select></label>
<label>Value <input id="setting-value" required size="8"></label> <button type="submit">Save</button></form>
<h2>Introductions to broker</h2>
<table><thead><tr><th>Couple</th><th>Committed since</th><th></th></tr></thead><tbody id="intros"></tbody></table>
<h2>Review queue</h2>
<table><thead><tr><th>Item</th><th>What</th><th>Why</th><th>Decision</th></tr></thead><tbody id="queue"></tbody></table>
<h2>Orders</h2>
<form id="order-form"><label>Order id or transaction hash <input id="order-query" required></label> <button type="submit">Look up</button></form>
<div id="order"></div>
<h2>Recent events</h2>
<table><thead><tr><th>When</th><th>Event</th><th>Detail</th></tr></thead><tbody id="events"></tbody></table>
</main>
<script nonce="${escapeHtml(nonce)}">
const $ = (id) => document.getElementById(id);
const status = (text) => { $('status').textContent = text; };
const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
// A row's buttons name their item (aria-label): a screen reader hears "Approve post 3", not one "Approve" after another.
const button = (label, onClick, quiet, name) => {
  const b = document.createElement('button');
  b.type = 'button'; b.textContent = label; if (quiet) b.className = 'quiet';
  if (name) b.setAttribute('aria-label', name);
  b.addEventListener('click', onClick);
  return b;
};
const send = (path, body) => fetch(path, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}),
}).then(async (response) => ({ status: response.status, body: await response.json().catch(() => ({})) }));
const act = async (label, path, body) => {
  const answer = await send(path, body);
  status(answer.status === 200 ? label + ': done' : label + ': ' + (answer.body.error || answer.status));
  await load();
  return answer;
};

const tiles = (snapshot) => [
  ['Health', snapshot.health.ok ? 'up' : 'down', 'payments ' + snapshot.health.payments],
  ['Mode', snapshot.sim_mode ? 'day 0' : 'open', snapshot.sim_mode ? 'not yet open to the public' : 'open to the public'],
  ['Admitted', snapshot.admitted, snapshot.cap_used_pct + '% of the cap of ' + snapshot.cap],
  ['Unowned seats', snapshot.unowned_admitted, 'of ' + snapshot.unowned_seats + ' (' + snapshot.unowned_share_pct + '% of the cap) for personas without an owner'],
  ['Outbound budget', snapshot.outbound_budgets.global.remaining, 'of ' + snapshot.outbound_budgets.global.points + ' free calls left this window; paid ' + snapshot.outbound_budgets.paid.remaining + ' of ' + snapshot.outbound_budgets.paid.points],
  ['Couples courting', snapshot.couples_by_state.courting, snapshot.couples_by_state.committed + ' committed, ' + snapshot.couples_by_state.brokered + ' brokered'],
  ['Intros to broker', snapshot.intros_to_broker, 'committed couples'],
  ['Turns', snapshot.turns_by_status.published, snapshot.turns_by_status.held + ' held, ' + snapshot.turns_by_status.blocked + ' blocked'],
  ['Chaperone today', snapshot.chaperone_today.allow, 'passed; ' + snapshot.chaperone_today.blocked + ' blocked, ' + snapshot.chaperone_today.held + ' held, ' + snapshot.chaperone_today.unavailable + ' unavailable'],
  ['Orders', snapshot.orders_by_status.fulfilled, 'fulfilled; ' + snapshot.orders_by_status.challenged + ' challenged, ' + snapshot.orders_by_status.failed + ' failed'],
  ['Revenue', '$' + snapshot.revenue_usdc, 'USDC, all time'],
  ['Buyback reserve', '$' + snapshot.buyback_reserve_usdc, 'USDC, 10% of revenue'],
  ['Geo denials today', snapshot.geo_denials_today, 'UTC day'],
];
const showNumbers = (snapshot) => {
  $('numbers').replaceChildren(...tiles(snapshot).map(([label, value, note]) => {
    const tile = document.createElement('div'); tile.className = 'tile';
    const strong = document.createElement('strong'); strong.textContent = String(value);
    const small = document.createElement('small'); small.textContent = note;
    tile.append(label, strong, small);
    tile.dataset.key = label;
    return tile;
  }));
  $('events').replaceChildren(...snapshot.recent_events.map((event) => {
    const row = document.createElement('tr');
    row.append(cell(event.at.replace('T', ' ').slice(0, 19)), cell(event.kind), cell(event.detail ? JSON.stringify(event.detail) : ''));
    return row;
  }));
};

const SVG = 'http://www.w3.org/2000/svg';
const chart = (title, days, value) => {
  const figure = document.createElement('figure');
  const caption = document.createElement('figcaption'); caption.textContent = title;
  const svg = document.createElementNS(SVG, 'svg');
  const width = 280, height = 90, bar = width / days.length;
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  svg.setAttribute('role', 'img');
  const values = days.map(value);
  svg.setAttribute('aria-label', title + ', last ' + days.length + ' days: ' + values.join(', '));
  const top = Math.max(1, ...values);
  days.forEach((day, index) => {
    const rect = document.createElementNS(SVG, 'rect');
    const h = Math.round((values[index] / top) * height);
    rect.setAttribute('x', String(index * bar + 1)); rect.setAttribute('width', String(bar - 2));
    rect.setAttribute('y', String(height - h)); rect.setAttribute('height', String(Math.max(h, 1)));
    const tip = document.createElementNS(SVG, 'title'); tip.textContent = day.day + ': ' + values[index];
    rect.append(tip); svg.append(rect);
  });
  // The first and last days under the bars, as page text: inside the SVG they would shrink with
  // the chart (a phone drew them at 11.5 px).
  const axis = document.createElement('div'); axis.className = 'axis'; axis.setAttribute('aria-hidden', 'true');
  for (const index of [0, days.length - 1]) {
    const label = document.createElement('span'); label.textContent = days[index].day.slice(5); axis.append(label);
  }
  figure.append(caption, svg, axis);
  return figure;
};
const showTrends = ({ days }) => {
  $('charts').replaceChildren(
    chart('Admissions a day', days, (d) => d.admissions),
    chart('Couples formed a day', days, (d) => d.couples),
    chart('Revenue a day (USDC)', days, (d) => Number(d.revenue_usdc)),
  );
};

const decide = (label, path, body) => [
  button('Approve', () => act(label + ' approved', path, { ...body, decision: 'approve' }), false, 'Approve ' + label),
  button('Reject', () => act(label + ' rejected', path, { ...body, decision: 'reject' }), true, 'Reject ' + label),
];
const queueRow = (item, what, why, buttons) => {
  const row = document.createElement('tr');
  const actions = document.createElement('td'); actions.append(...buttons);
  row.append(cell(item), cell(what), cell(why), actions);
  return row;
};
const showQueue = (queue) => {
  // The queue lists a held item once, with its reporters; \`reported\` holds only live items.
  const why = (item, reason) => item.reporters > 0 ? reason + ', ' + item.reporters + ' reporter(s)' : reason;
  const rows = [
    ...queue.personasForReview.map((p) => queueRow('persona ' + p.id, '@' + p.handle + ' (human doc)', 'held for review', decide('persona ' + p.id, '/admin/actions/review', { personaId: p.id }))),
    ...queue.heldPosts.map((p) => queueRow('post ' + p.id, (p.featured ? '[featured] ' : '') + p.board + ' @' + p.handle + ': ' + p.body, why(p, p.reason || 'held'), decide('post ' + p.id, '/admin/actions/moderate', { targetType: 'post', targetId: p.id }))),
    ...queue.heldTurns.map((t) => queueRow('turn ' + t.id, 'couple ' + t.coupleId + ': ' + t.body, why(t, t.reason || 'held'), decide('turn ' + t.id, '/admin/actions/moderate', { targetType: 'turn', targetId: t.id }))),
    ...queue.heldPersonas.map((p) => queueRow('persona ' + p.id, '@' + p.handle, why(p, p.reason || 'held'), decide('persona ' + p.id, '/admin/actions/moderate', { targetType: 'persona', targetId: p.id }))),
    ...queue.heldCouples.map((c) => queueRow('couple ' + c.id, 'a courtship', why(c, 'held on reports'), [button('End it', () => act('couple ' + c.id + ' ended', '/admin/actions/moderate', { targetType: 'couple', targetId: c.id, decision: 'reject' }), true, 'End couple ' + c.id)])),
    ...queue.reported.map((r) => queueRow(r.targetType + ' ' + r.targetId, 'reported', r.reporters + ' reporter(s)', decide(r.targetType + ' ' + r.targetId, '/admin/actions/moderate', { targetType: r.targetType, targetId: r.targetId }))),
  ];
  if (rows.length === 0) { const row = document.createElement('tr'); const td = cell('Nothing waits for review.'); td.colSpan = 4; td.className = 'empty'; row.append(td); rows.push(row); }
  $('queue').replaceChildren(...rows);
  const intros = queue.introsToBroker.map((intro) => {
    const row = document.createElement('tr');
    const actions = document.createElement('td');
    actions.append(button('Broker', () => act('couple ' + intro.coupleId + ' brokered', '/admin/actions/broker', { coupleId: intro.coupleId }), false, 'Broker couple ' + intro.coupleId));
    row.append(cell('couple ' + intro.coupleId), cell(intro.since.slice(0, 10)), actions);
    return row;
  });
  if (intros.length === 0) { const row = document.createElement('tr'); const td = cell('No committed couple waits.'); td.colSpan = 3; td.className = 'empty'; row.append(td); intros.push(row); }
  $('intros').replaceChildren(...intros);
};

const load = async () => {
  const [snapshot, queue, trends] = await Promise.all(['/admin.json', '/admin/queue', '/admin/trends'].map((path) => fetch(path, { cache: 'no-store' })));
  const signedIn = snapshot.status === 200;
  $('signed-out').hidden = signedIn;
  $('console').hidden = !signedIn;
  if (!signedIn) return;
  showNumbers(await snapshot.json());
  showQueue(await queue.json());
  showTrends(await trends.json());
};

${siweSignInScript}
$('sign-in').addEventListener('click', async () => {
  try {
    const signedIn = await signInWithWallet('/api/operator/session/nonce', '/api/operator/session');
    if (signedIn.status !== 200) { status(signedIn.body.error || 'sign-in failed'); return; }
    $('operator').textContent = signedIn.body.operator;
    status('Signed in.');
    await load();
  } catch (error) { status('Sign-in cancelled: ' + (error && error.message ? error.message : error)); }
});
$('sign-out').addEventListener('click', async () => { await send('/api/operator/session/end'); status('Signed out.'); await load(); });
$('reload').addEventListener('click', () => load());
$('beat').addEventListener('click', async () => {
  const answer = await act('Beat', '/admin/actions/beat', {});
  if (answer.status === 200) status('Beat ' + answer.body.cycleId + ': ' + answer.body.created + ' couple(s) formed');
});
$('settings').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('setting-key').value, raw = $('setting-value').value.trim();
  const value = key === 'venue_open' ? raw === 'true' : Number(raw);
  await act('Setting ' + key, '/admin/actions/settings', { key, value });
});
$('order-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const query = $('order-query').value.trim();
  const param = /^0x[0-9a-fA-F]{64}$/.test(query) ? 'transaction' : 'orderId';
  const response = await fetch('/admin/orders?' + new URLSearchParams({ [param]: query }), { cache: 'no-store' });
  const order = await response.json().catch(() => ({}));
  const box = $('order');
  if (response.status !== 200) { box.textContent = order.error || 'not found'; return; }
  const line = document.createElement('p');
  line.textContent = order.orderId + ': ' + order.kind + ', ' + order.status + ', ' + order.amountUsdc + ' USDC' + (order.transaction ? ', tx ' + order.transaction : '') + (order.credited.length ? ', credited ' + order.credited.map((c) => c.credits).join('+') + ' credits' : '');
  box.replaceChildren(line, button('Credit the payer (undelivered)', () => act('Order ' + order.orderId + ' credited', '/admin/actions/credit', { orderId: order.orderId })));
});
load();
</script>
</body></html>`
