// The service's icon: a small SVG (the console's blue, a phone's outline with a signal) served at
// /favicon.svg and, for browsers that ask for it by habit, at /favicon.ico too (the same image,
// as image/svg+xml: Chromium, Firefox and Safari read the type, not the name). Every HTML page
// names it with <link rel="icon">.
import { PUBLIC_PAGE } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { html } from '../../lib/html.ts';

export const FAVICON_PATH = '/favicon.svg';
export const FAVICON_LINK = html`<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" role="img" aria-label="Cellgate">
<rect width="32" height="32" rx="7" fill="#1b4fd1"/>
<rect x="10" y="6" width="12" height="20" rx="2.5" fill="none" stroke="#ffffff" stroke-width="2"/>
<circle cx="16" cy="22" r="1.3" fill="#ffffff"/>
<path d="M13 11.5a4.2 4.2 0 0 1 6 0M14.6 13.6a1.9 1.9 0 0 1 2.8 0" fill="none" stroke="#ffffff" stroke-width="1.5" stroke-linecap="round"/>
</svg>
`;

export function registerFavicon(app: App): void {
  for (const path of [FAVICON_PATH, '/favicon.ico']) {
    app.get(path, PUBLIC_PAGE, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .header('x-content-type-options', 'nosniff')
        .type('image/svg+xml')
        .send(FAVICON_SVG),
    );
  }
}
