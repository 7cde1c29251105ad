// Health, the OpenAPI document generated from the route schemas, and the human reference at /docs.
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../../lib/errors.ts';
import { Described, PUBLIC_PAGE } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { sendOpenApi } from './openapi-texts.ts';

export const VERSION = '0.1.0';

const Health = Type.Object(
  {
    status: Type.Literal('ok'),
    version: Type.String({ description: 'The API version.' }),
    database: Type.Literal('ok'),
  },
  {
    $id: 'Health',
    description: 'The process answers and its database takes writes.',
    examples: [{ status: 'ok', version: VERSION, database: 'ok' }],
  },
);

export function registerSystemRoutes(app: App, database: Database): void {
  app.get(
    '/health',
    {
      config: { auth: 'public', unlimited: true },
      schema: {
        operationId: 'getHealth',
        tags: ['System'],
        summary: 'Liveness and database reachability',
        description:
          '503 unavailable when the database is unreachable or cannot be written (a read-only file or server): `database` says which.',
        response: { 200: Described(Health, 'The process is up and its database answers.') },
      },
    },
    async () => {
      const health = await database.ping();
      if (health !== 'ok') {
        const message =
          health === 'unreachable'
            ? 'The database is unreachable.'
            : "The database is read-only: every write would fail (check the disk, the file's permissions, or that the server is a primary).";
        throw new ApiError('unavailable', message, {
          headers: { 'Retry-After': '5' },
          extensions: { database: health },
        });
      }
      return { status: 'ok' as const, version: VERSION, database: 'ok' as const };
    },
  );

  // The document, built once off the request path (src/modules/system/openapi-texts.ts).
  for (const url of ['/openapi.yaml', '/docs/openapi.yaml'])
    app.get(url, PUBLIC_PAGE, (request, reply) => sendOpenApi(app, 'yaml', request, reply));
  for (const url of ['/openapi.json', '/docs/openapi.json'])
    app.get(url, PUBLIC_PAGE, (request, reply) => sendOpenApi(app, 'json', request, reply));

  // The error pages at /docs/errors are src/modules/docs.
}
