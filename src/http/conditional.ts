// Conditional GETs of the files the service builds once and serves as is (the device agent, the
// reference's script): a strong ETag, and If-None-Match answered 304.
import type { FastifyRequest } from 'fastify';

/** Served as is for 5 minutes, then revalidated with If-None-Match (a new build changes the ETag). */
export const REVALIDATED_CACHE_CONTROL = 'public, max-age=300';

/** If-None-Match names `etag` (or is *): the copy the client holds is current. */
export const isFresh = (request: FastifyRequest, etag: string): boolean =>
  request.headers['if-none-match']?.split(',').some((tag) => ['*', etag, `W/${etag}`].includes(tag.trim())) ?? false;
