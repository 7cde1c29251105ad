// A URL from the configuration as it may be shown (start errors, logs): its password replaced by
// ***. Read without the URL parser, which a mistyped URL is likely to fail: after the scheme (even
// one missing its ':' or slashes), everything between the user name's ':' and the last '@' is
// masked, so a password holding '/', '@' or ':' is hidden whole (a port or path that looks like
// one is masked too, which only hides more).
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/*|^[A-Za-z][A-Za-z0-9+.-]*\/+/;

export function maskedUrl(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at === -1) return raw;
  const start = SCHEME.exec(raw)?.[0].length ?? 0;
  const colon = raw.indexOf(':', start);
  if (colon === -1 || colon > at) return raw;
  return `${raw.slice(0, colon + 1)}***${raw.slice(at)}`;
}
