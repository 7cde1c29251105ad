// The page /oauth/authorize shows when it cannot redirect: the client or its redirect URI is not
// known good, so the error is told to the person in the browser instead of sent anywhere.
import { html, type Html } from '../../lib/html.ts';
import { FAVICON_LINK } from '../docs/favicon.ts';

export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function errorPage(message: string): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cellgate — authorization request refused</title>
${FAVICON_LINK}
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#f6f7f9;margin:0;padding:3rem 1rem}
main{max-width:32rem;margin:0 auto;background:#fff;border:1px solid #d8dbe0;border-radius:8px;padding:2rem}
h1{font-size:1.25rem;margin:0 0 1rem}
p{line-height:1.5;margin:0 0 .75rem}
</style>
</head>
<body>
<main>
<h1>This authorization request cannot be completed</h1>
<p>${message}</p>
<p>Nothing was shared. Return to the application that sent you here and try again, or contact its developer.</p>
</main>
</body>
</html>
`;
}
