import { escapeHtml } from '@agents/service-kit'

/** The local provider's hosted check page: what Didit's would be, reduced to two buttons. */
export const renderVerifyPage = ({ sessionId, status }: { sessionId: string; status: string }) => {
  const id = escapeHtml(sessionId)
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Identity check</title></head>
<body>
<h1>Identity check for session ${id}</h1>
<p>Status: <span id="status">${escapeHtml(status)}</span></p>
<form method="post" action="/verify/${id}/decision">
  <input type="hidden" name="status" value="Approved">
  <label>Age <input name="age" type="number" value="30"></label>
  <button id="approve" type="submit">Approve</button>
</form>
<form method="post" action="/verify/${id}/decision">
  <input type="hidden" name="status" value="Declined">
  <button id="decline" type="submit">Decline</button>
</form>
</body>
</html>
`
}

/** Shown after a button: the decision and how the venue's webhook answered. */
export const renderDecidedPage = ({
  status,
  answerStatus,
}: {
  status: string
  answerStatus: number
}) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Identity check done</title></head>
<body>
<h1>Decision sent: <span id="decision">${escapeHtml(status)}</span></h1>
<p>The webhook answered <span id="webhook-status">${answerStatus}</span>.</p>
</body>
</html>
`
