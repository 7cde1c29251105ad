// What the console's routes share: the session cookie (HttpOnly, SameSite=Lax, Secure when the
// console is served over https), the same-origin check of form posts, the form body parser and
// the headers of its pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.ts';
import type { App } from '../../http/types.ts';
import type { Html } from '../../lib/html.ts';
import { SESSION_TTL_MS } from './service.ts';

/** Where the service serves the console (CELLGATE_CONSOLE_URL points here, possibly through a proxy). */
export const CONSOLE_PATH = '/console';
/** The API route that decides a consent with the console session: the cookie is sent there too. */
export const SESSION_CONSENT_PATH = '/v1/oauth/consent/session';
const COOKIE_NAME = 'cg_console';
const COOKIE_PATHS = [CONSOLE_PATH, SESSION_CONSENT_PATH];

export type ConsoleHttp = ReturnType<typeof consoleHttp>;

/** Cookies Secure on https; `origins`: where a form post may come from (the console's and the API's). */
export const consoleHttp = (consoleUrl: string, baseUrl: string) => ({
  secure: new URL(consoleUrl).protocol === 'https:',
  origins: new Set([new URL(consoleUrl).origin, new URL(baseUrl).origin]),
});

/** A cookie of the request by name (the console sets only URL-safe values). */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of request.headers.cookie?.split(';') ?? []) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

export const readSessionCookie = (request: FastifyRequest) => readCookie(request, COOKIE_NAME);

/** A cookie as Set-Cookie says it: HttpOnly, Secure on https, Max-Age only (the browser's clock decides); null clears it. */
export const cookie = (
  http: ConsoleHttp,
  name: string,
  path: string,
  value: string | null,
  maxAge: number,
  sameSite = 'Strict',
) =>
  `${name}=${value ?? ''}; Path=${path}; Max-Age=${value === null ? 0 : maxAge}; HttpOnly; SameSite=${sameSite}${http.secure ? '; Secure' : ''}`;

/**
 * Sets the flash `name` (base64url JSON) for the page at `path`, on the 303 that answers a form:
 * the page it leads to reads and clears it (Post/Redirect/Get), so a reload never posts again.
 */
export function setFlash(reply: FastifyReply, http: ConsoleHttp, name: string, path: string, value: object): void {
  reply.header('set-cookie', cookie(http, name, path, Buffer.from(JSON.stringify(value)).toString('base64url'), 300));
}

/** Takes the page's flash `name` (shown once): its value when `owned` finds it this page's and session's. */
export function takeFlash<T extends object>(
  { request, reply }: { request: FastifyRequest; reply: FastifyReply },
  http: ConsoleHttp,
  name: string,
  path: string,
  owned: (value: Partial<T>) => boolean,
): T | undefined {
  const raw = readCookie(request, name);
  if (raw === undefined) return undefined;
  reply.header('set-cookie', cookie(http, name, path, null, 300));
  try {
    const value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<T>;
    return value !== null && typeof value === 'object' && owned(value) ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The session cookie, one per path it must reach (a cookie has a single Path); a null token clears it. */
export const sessionCookies = (http: ConsoleHttp, token: string | null) =>
  COOKIE_PATHS.map((path) => cookie(http, COOKIE_NAME, path, token, SESSION_TTL_MS / 1000, 'Lax'));

/**
 * A post without an Origin header (not a browser, or an old one) passes; the CSRF token still
 * guards it. Pages send `Referrer-Policy: same-origin`, so browsers send our own origin (with
 * no-referrer they would send `Origin: null`).
 */
export function fromOwnOrigin(request: FastifyRequest, http: ConsoleHttp): boolean {
  const origin = request.headers.origin;
  return origin === undefined || http.origins.has(origin);
}

export const isFormPost = (request: FastifyRequest) =>
  /^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '');

/** Parses form bodies (up to 8 KiB) in the scope; a repeated field is a 400. `convert` types a field's text. */
export function registerFormParser(
  scope: App,
  convert: (name: string, value: string) => unknown = (_name, value) => value,
): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 8 * 1024 },
    (_request, body, done) => {
      const fields: Record<string, unknown> = {};
      for (const [name, value] of new URLSearchParams(String(body))) {
        if (Object.hasOwn(fields, name)) {
          done(new ApiError('invalid_request', `The field ${name.slice(0, 50)} is repeated.`), undefined);
          return;
        }
        fields[name] = convert(name, value);
      }
      done(null, fields);
    },
  );
}

const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Sends a console page. Forms post only to the console, except on the consent page (browsers apply form-action to its redirect). */
export function sendPage(
  reply: FastifyReply,
  status: number,
  body: Html,
  options: { formsAnywhere?: boolean } = {},
): FastifyReply {
  return reply
    .code(status)
    .headers({
      'cache-control': 'no-store',
      'content-security-policy': options.formsAnywhere ? CSP : `${CSP}; form-action 'self'`,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    })
    .type('text/html; charset=utf-8')
    .send(body.toString());
}

/** `next` after sign-in: a console path of this origin only (never an open redirect). */
export function safeNext(next: unknown): string | undefined {
  if (
    typeof next !== 'string' ||
    next.length > 2048 ||
    !next.startsWith(`${CONSOLE_PATH}/`) ||
    /[\\\s]|\/\/|\/\.\.?(\/|$|\?)/.test(next)
  )
    return undefined;
  const url = new URL(next, 'http://console.invalid');
  return url.origin === 'http://console.invalid' && url.pathname.startsWith(`${CONSOLE_PATH}/`)
    ? `${url.pathname}${url.search}`
    : undefined;
}
