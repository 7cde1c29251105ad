// Packages a request needs only on some paths (x402's codecs, EVM address checksums, the phone
// number metadata, the PostgreSQL driver) are loaded on their first use rather than at start:
// the idle service stays within its memory budget (issue 24 §5). Synchronous: require() loads CommonJS and ES modules
// without top-level await, so callers stay synchronous.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A function returning the package `specifier`, loaded on its first call. */
export function onFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(specifier) as T);
}
