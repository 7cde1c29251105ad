// What the API reference at /docs shows and may do: Scalar's configuration (the document, the
// Cellgate look) and the page's Content-Security-Policy.
import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import type { Config } from '../../config.ts';

/** The document the reference renders: the same one SDKs are generated from. */
export const DOCUMENT_PATH = '/openapi.yaml';

// The console's colours (src/modules/console/console.css): its accent #1b4fd1 on white, also for
// primary buttons (Send); a lighter blue in dark mode, where #1b4fd1 on near-black would not meet
// WCAG AA. The selectors carry `body` so they outrank Scalar's own theme, injected after them.
const THEME = `
:root { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; --scalar-font-code: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
body.light-mode, body .light-mode { --scalar-color-accent: #1b4fd1; --scalar-background-accent: #1b4fd11a; --scalar-color-1: #14181f; --scalar-color-2: #4a5261; --scalar-border-color: #d5d9e0; --scalar-background-2: #f3f5f8; --scalar-link-color: #1b4fd1; --scalar-button-1: #1b4fd1; --scalar-button-1-hover: #133a9c; --scalar-button-1-color: #ffffff; }
body.dark-mode, body .dark-mode { --scalar-color-accent: #8fabff; --scalar-background-accent: #8fabff1f; --scalar-link-color: #8fabff; }
`;

export const REFERENCE_CONFIGURATION: Partial<ApiReferenceConfiguration> = {
  url: DOCUMENT_PATH,
  pageTitle: 'Cellgate API reference',
  title: 'Cellgate API',
  theme: 'default',
  customCss: THEME,
  // Offline: no fonts from fonts.scalar.com, no telemetry, no AI agent or MCP helpers (Scalar's
  // services), no developer toolbar (it offers to upload the document to Scalar), no button to
  // open the document in client.scalar.com (the try-it client on this page stays).
  withDefaultFonts: false,
  hideClientButton: true,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'yaml',
  operationTitleSource: 'summary',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  // Try it: the API key (or OAuth token) is the credential most readers have.
  authentication: { preferredSecurityScheme: 'bearer' },
};

/**
 * Only this service: the script and the document from here, the try-it requests to the API
 * (CELLGATE_BASE_URL, here unless the API is reached through another origin), the inline start
 * call by its hash. Styles need 'unsafe-inline': Scalar injects a <style> and sets style="".
 */
export function referencePolicy(config: Config, inlineScripts: readonly string[]): string {
  const api = new URL(config.baseUrl).origin;
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScripts.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${api}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
