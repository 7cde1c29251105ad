// The HTML of the error pages and the landing: plain server-rendered pages, one small stylesheet,
// no script. Every dynamic value goes through `html` (escaped); inline `code` spans in the error
// table's prose become <code>.
import { html, join, raw, type Html, type HtmlValue } from '../../lib/html.ts';
import type { ErrorEntry, Landing, PaymentCase } from './catalogue.ts';
import { FAVICON_LINK } from './favicon.ts';

/** Prose from the error table: text, with `backticks` as <code> (split's odd parts are the captured spans). */
const prose = (text: string): HtmlValue[] =>
  text.split(/`([^`]+)`/).map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part));

// Contrast: text #1f2933 on #ffffff (14.5:1), muted #52606d (6.4:1), links #0b5cad (6.6:1).
const STYLE = raw(`
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
body { margin: 0; color: #1f2933; background: #ffffff; }
header, main, footer { max-width: 56rem; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.25rem; }
header a { color: #1f2933; font-weight: 600; text-decoration: none; }
nav ul { display: flex; flex-wrap: wrap; gap: 0 1rem; list-style: none; padding: 0; }
a { color: #0b5cad; }
a:focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 0.25rem; }
.case { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.5rem 0 1rem; }
.case dt { color: #52606d; }
.case dd { margin: 0; }
.muted, footer { color: #52606d; }
footer { padding-bottom: 2rem; margin-top: 3rem; font-size: 0.9rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
code { background: #f0f3f6; padding: 0.05em 0.3em; border-radius: 3px; }
pre { background: #f0f3f6; padding: 1rem; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
code { overflow-wrap: anywhere; }
td { overflow-wrap: anywhere; }
@media (min-width: 60rem) { td, td code { overflow-wrap: normal; } }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid #d9e0e6; vertical-align: top; }
.hero { padding: 1.5rem 0 0.5rem; }
.hero h1 { font-size: 2.25rem; margin-bottom: 0.25rem; }
.version { font-size: 1rem; font-weight: 400; }
.tagline { font-size: 1.25rem; margin-top: 0; color: #1f2933; }
.actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.25rem; }
.button { display: inline-block; padding: 0.55rem 1.1rem; border-radius: 6px; border: 1px solid #8a93a3; color: #1f2933; font-weight: 600; text-decoration: none; background: #ffffff; }
.button:hover { background: #f0f3f6; }
.button.primary { background: #1b4fd1; border-color: #1b4fd1; color: #ffffff; }
.button.primary:hover { background: #133a9c; }
.steps { padding-left: 1.25rem; }
.steps li { margin-bottom: 0.75rem; }
.steps p { margin: 0 0 0.5rem; }
nav ul.links { display: block; padding-left: 1.25rem; list-style: disc; }
.links li { margin-bottom: 0.35rem; }
code.endpoint { font-size: 1em; overflow-wrap: anywhere; }
.status { display: inline-block; background: #1f2933; color: #ffffff; border-radius: 4px; padding: 0 0.4rem; font-size: 0.9rem; }
`);

function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${FAVICON_LINK}
<style>${STYLE}</style>
</head>
<body>
<header><a href="/">Cellgate</a></header>
<main>
${body}
</main>
<footer>Cellgate · <a href="/docs">API reference</a> · <a href="/docs/errors">Error codes</a></footer>
</body>
</html>
`;
}

export function errorPage(entry: ErrorEntry): Html {
  const operations =
    entry.operations.length === 0
      ? html`<p>Any request can receive it: it is answered before a request reaches an operation.</p>`
      : entry.every_operation
        ? html`<p>Every operation can return it (${entry.operations.length} operations).</p>`
        : html`<table>
<caption class="muted">${entry.operations.length} operation${entry.operations.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Operation</th><th scope="col">Method and path</th></tr></thead>
<tbody>
${join(
  entry.operations.map(
    (o) =>
      html`<tr><td>${o.summary} <span class="muted">(<code>${o.operation_id}</code>)</span></td><td><code>${o.method} ${o.path}</code></td></tr>`,
  ),
  '\n',
)}
</tbody>
</table>`;
  return layout(
    `${entry.code}: ${entry.title} (HTTP ${entry.status}) · Cellgate errors`,
    html`<p class="muted"><a href="/docs/errors">Error codes</a></p>
<h1><code>${entry.code}</code>: ${entry.title}</h1>
<p><span class="status">HTTP ${entry.status}</span> ${entry.status_text}</p>
<h2>What it means</h2>
<p>${prose(entry.meaning)}</p>
<h2>Usual causes</h2>
<ul>
${join(
  entry.causes.map((cause) => html`<li>${prose(cause)}</li>`),
  '\n',
)}
</ul>
<h2>How to fix it</h2>
<p>${prose(entry.fix)}</p>
${entry.cases && paymentCases(entry.cases)}
<h2>Example problem body</h2>
<p>Errors are <code>application/problem+json</code> (RFC 9457); branch on <code>code</code>, show <code>detail</code>, and quote <code>request_id</code> when reporting a problem.</p>
<pre><code>${JSON.stringify(entry.example, null, 2)}</code></pre>
<h2>Operations that can return it</h2>
${operations}`,
  );
}

const INTENT_TITLES: Record<string, string> = {
  setup: 'The first cell: the plan setup',
  create_cell: 'One cell more than the plan includes',
  top_up: 'A send the prepaid balance cannot cover',
  reinstate: 'A suspended organization',
};

/** payment_required's situations, then what `payment` carries. */
function paymentCases(cases: PaymentCase[]): Html {
  const sections = join(
    cases.map(
      (
        c,
      ) => html`<h3>${c.intent ? html`${INTENT_TITLES[c.intent]} (<code>${c.intent}</code>)` : 'A payment that was refused'}</h3>
<p>${prose(c.when)}</p>
<dl class="case">
<dt>Answered by</dt><dd>${join(
        c.operations.map((o) => (/^(GET|POST|PATCH|PUT|DELETE) \//.test(o) ? html`<code>${o}</code>` : o)),
        ', ',
      )}</dd>
<dt>${c.intent ? html`<code>payment</code> asks for` : 'Why'}</dt><dd>${prose(c.amount)}</dd>
${c.intent && html`<dt><code>detail</code></dt><dd>${c.detail}</dd>`}
<dt>Then</dt><dd>${prose(c.then)}</dd>
</dl>`,
    ),
    '\n',
  );
  return html`<h2>When it comes, and what to pay</h2>
${sections}
<h2>What <code>payment</code> carries</h2>
<ul>
<li><code>intent</code> (<code>setup</code>, <code>create_cell</code>, <code>top_up</code>, <code>reinstate</code>), <code>amount_usd</code> and <code>currency</code>; <code>tier</code> for a plan, <code>cell_id</code> for one cell's renewal.</li>
<li><code>rails</code>: the ways to pay on this deployment (<code>card_processor</code>, <code>x402</code>, <code>mpp</code>).</li>
<li><code>checkout_url</code> with the card rail: open it in a browser and pay.</li>
<li><code>x402</code> (quotes per network, the seller address) when x402 is configured; the response's <code>PAYMENT-REQUIRED</code> header carries the same requirements, so an x402 client pays and repeats the request unchanged.</li>
<li><code>mpp</code> (realm, methods, <code>pay_url</code>) when MPP is configured.</li>
</ul>
<p>Over MCP, a tool that needs money (<code>create_cell</code>, <code>send_message</code>) answers a tool error (<code>isError: true</code>) whose text content is JSON with the code, the message, the same <code>payment</code> and, where x402 is configured, the x402 PaymentRequired.</p>`;
}

export function errorIndexPage(entries: ErrorEntry[]): Html {
  return layout(
    'Error codes · Cellgate',
    html`<h1>Error codes</h1>
<p>Every error is an <code>application/problem+json</code> body with a machine <code>code</code>; its <code>type</code> links to the code's page here.</p>
<table>
<thead><tr><th scope="col">Code</th><th scope="col">HTTP status</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${join(
  entries.map(
    (e) =>
      html`<tr><td><a href="/docs/errors/${e.code}"><code>${e.code}</code></a></td><td>${e.status}</td><td>${prose(e.meaning)}</td></tr>`,
  ),
  '\n',
)}
</tbody>
</table>`,
  );
}

export function unknownErrorPage(code: string): Html {
  return layout(
    'Unknown error code · Cellgate',
    html`<h1>Unknown error code</h1>
<p>There is no error code <code>${code}</code>.</p>
<p>See <a href="/docs/errors">all error codes</a>.</p>`,
  );
}

/** A shell command or JSON shown on the landing. */
const block = (text: string) => html`<pre><code>${text}</code></pre>`;

export function landingPage(landing: Landing): Html {
  const { links, base_url: base } = landing;
  const mcpConfig = JSON.stringify(
    { mcpServers: { cellgate: { type: 'http', url: links.mcp, headers: { Authorization: 'Bearer cg_live_...' } } } },
    null,
    2,
  );
  return layout(
    `${landing.name}: phone lines for software agents`,
    html`<div class="hero">
<h1>${landing.name} <span class="muted version">${landing.version}</span></h1>
<p class="tagline">Phone lines for software agents.</p>
<p>A <strong>cell</strong> is a real phone number, carried by an Android phone. Your agents send and receive SMS and MMS through their cells over a REST API or the Model Context Protocol, hear about replies and deliveries by webhooks or a live event stream, group cells into pods for rings and broadcasts, and pay by card, x402 or MPP.</p>
<p class="actions">
<a class="button primary" href="${links.console}/sign-up">Sign up</a>
<a class="button" href="${links.sign_in}">Sign in to the console</a>
<a class="button" href="${links.docs}">API reference</a>
</p>
</div>

<h2 id="quick-start">Quick start</h2>
<ol class="steps">
<li><p><strong>Sign up</strong> <a href="${links.console}/sign-up">in the console</a>, or with the API: an email and an organization name. The answer carries your API key, shown once; a 6-digit code is emailed to you.</p>
${block(`curl -X POST ${links.sign_up} \\\n  -H 'content-type: application/json' \\\n  -d '{"email": "you@example.com", "organization_name": "Acme Agents"}'`)}</li>
<li><p><strong>Verify</strong> with the emailed code: <code>POST ${base}/v1/agent/verify</code> with <code>{"code": "123456"}</code> and the key as <code>Authorization: Bearer cg_live_...</code>.</p></li>
<li><p><strong>Create a cell</strong>: <code>POST ${base}/v1/cells</code>. The first one answers 402 <a href="${links.errors}/payment_required"><code>payment_required</code></a> with the plan to pay and a <code>checkout_url</code>; pay, then repeat the request.</p></li>
<li><p><strong>Send a text</strong>: <code>POST ${base}/v1/cells/{cell_id}/messages/send</code> with <code>{"to": "+14155550123", "body": "Hello"}</code> and an <code>Idempotency-Key</code>.</p></li>
<li><p><strong>Hear back</strong> by a webhook (<code>POST /v1/webhooks</code>), the event stream, or an agent's <code>wait_for_reply</code> over MCP.</p></li>
</ol>
<p>Then run your organization from the <a href="${links.console}">console</a>: cells and conversations, webhooks, API keys and billing.</p>

<h2 id="mcp">Connect an agent over MCP</h2>
<p>The MCP endpoint (Streamable HTTP) is <code class="endpoint">${links.mcp}</code>. Give your MCP host the URL and an API key, or let it sign in with OAuth:</p>
${block(mcpConfig)}

<h2 id="reference">Reference</h2>
<nav aria-label="Reference">
<ul class="links">
<li><a href="${links.docs}">API reference</a>: every operation, with a try-it client</li>
<li><a href="${links.openapi}">OpenAPI document</a> (YAML), for SDK generators</li>
<li><a href="${links.errors}">Error codes</a>: what each problem code means and how to fix it</li>
<li><a href="${links.health}">Health</a> of the service and its database</li>
</ul>
</nav>`,
  );
}
