// The HTML of the error pages and the landing: plain server-rendered pages, one small stylesheet,
// no script. Every dynamic value goes through `html` (escaped); inline `code` spans in the error
// table's prose become <code>.
import type { ErrorEntry, Landing } from './catalogue.ts';

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** Prose from the error table: escaped, with `backticks` as <code>. */
const prose = (text: string) => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

// Contrast: text #1f2933 on #ffffff (14.5:1), muted #52606d (6.4:1), links #0b5cad (6.6:1).
const STYLE = `
:root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.5; }
body { margin: 0; color: #1f2933; background: #ffffff; }
header, main, footer { max-width: 46rem; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.25rem; }
header a { color: #1f2933; font-weight: 600; text-decoration: none; }
nav ul { display: flex; flex-wrap: wrap; gap: 0 1rem; list-style: none; padding: 0; }
a { color: #0b5cad; }
a:focus-visible { outline: 3px solid #0b5cad; outline-offset: 2px; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
.muted, footer { color: #52606d; }
footer { padding-bottom: 2rem; margin-top: 3rem; font-size: 0.9rem; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
code { background: #f0f3f6; padding: 0.05em 0.3em; border-radius: 3px; }
pre { background: #f0f3f6; padding: 1rem; overflow-x: auto; border-radius: 6px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.4rem 0.5rem; border-bottom: 1px solid #d9e0e6; vertical-align: top; }
.status { display: inline-block; background: #1f2933; color: #ffffff; border-radius: 4px; padding: 0 0.4rem; font-size: 0.9rem; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
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

export function errorPage(entry: ErrorEntry): string {
  const operations =
    entry.operations.length === 0
      ? `<p>Any request can receive it: it is answered before a request reaches an operation.</p>`
      : entry.every_operation
        ? `<p>Every operation can return it (${entry.operations.length} operations).</p>`
        : `<table>
<caption class="muted">${entry.operations.length} operation${entry.operations.length === 1 ? '' : 's'}</caption>
<thead><tr><th scope="col">Operation</th><th scope="col">Method and path</th></tr></thead>
<tbody>
${entry.operations.map((o) => `<tr><td>${escape(o.summary)} <span class="muted">(<code>${escape(o.operation_id)}</code>)</span></td><td><code>${escape(o.method)} ${escape(o.path)}</code></td></tr>`).join('\n')}
</tbody>
</table>`;
  return layout(
    `${entry.code}: ${entry.title} (HTTP ${entry.status}) · Cellgate errors`,
    `<p class="muted"><a href="/docs/errors">Error codes</a></p>
<h1><code>${escape(entry.code)}</code>: ${escape(entry.title)}</h1>
<p><span class="status">HTTP ${entry.status}</span> ${escape(entry.status_text)}</p>
<h2>What it means</h2>
<p>${prose(entry.meaning)}</p>
<h2>Usual causes</h2>
<ul>
${entry.causes.map((cause) => `<li>${prose(cause)}</li>`).join('\n')}
</ul>
<h2>How to fix it</h2>
<p>${prose(entry.fix)}</p>
<h2>Example problem body</h2>
<p>Errors are <code>application/problem+json</code> (RFC 9457); branch on <code>code</code>, show <code>detail</code>, and quote <code>request_id</code> when reporting a problem.</p>
<pre><code>${escape(JSON.stringify(entry.example, null, 2))}</code></pre>
<h2>Operations that can return it</h2>
${operations}`,
  );
}

export function errorIndexPage(entries: ErrorEntry[]): string {
  return layout(
    'Error codes · Cellgate',
    `<h1>Error codes</h1>
<p>Every error is an <code>application/problem+json</code> body with a machine <code>code</code>; its <code>type</code> links to the code's page here.</p>
<table>
<thead><tr><th scope="col">Code</th><th scope="col">HTTP status</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${entries.map((e) => `<tr><td><a href="/docs/errors/${escape(e.code)}"><code>${escape(e.code)}</code></a></td><td>${e.status}</td><td>${prose(e.meaning)}</td></tr>`).join('\n')}
</tbody>
</table>`,
  );
}

export function unknownErrorPage(code: string): string {
  return layout(
    'Unknown error code · Cellgate',
    `<h1>Unknown error code</h1>
<p>There is no error code <code>${escape(code)}</code>.</p>
<p>See <a href="/docs/errors">all error codes</a>.</p>`,
  );
}

export function landingPage(landing: Landing): string {
  const described: Record<string, string> = {
    docs: 'API reference',
    errors: 'Error codes',
    console: 'Console: your organization, cells and conversations',
    health: 'Health of the service and its database',
    openapi: 'OpenAPI document (YAML)',
  };
  return layout(
    `${landing.name} ${landing.version}`,
    `<h1>${escape(landing.name)} <span class="muted">${escape(landing.version)}</span></h1>
<p>Phone lines for software agents: SMS and MMS over a REST API, webhooks and an event stream.</p>
<nav aria-label="Links">
<ul>
${Object.entries(landing.links)
  .map(([key, href]) => `<li><a href="${escape(href)}">${escape(described[key] ?? key)}</a></li>`)
  .join('\n')}
</ul>
</nav>`,
  );
}
