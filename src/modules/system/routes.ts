// Health, the OpenAPI document generated from the route schemas, and the human reference at /docs.
import { Type } from 'typebox';
import type { Database } from '../../db/database.ts';
import { ApiError } from '../../lib/errors.ts';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';

export const VERSION = '0.1.0';

const Health = Type.Object(
  { status: Type.Literal('ok'), version: Type.String({ description: 'The API version.' }), database: Type.Literal('ok') },
  { $id: 'Health', description: 'The process answers and reaches its database.', examples: [{ status: 'ok', version: VERSION, database: 'ok' }] },
);

export function registerSystemRoutes(app: App, database: Database): void {
  app.get('/health', {
    config: { auth: 'public', unlimited: true },
    schema: {
      operationId: 'getHealth',
      tags: ['System'],
      summary: 'Liveness and database reachability',
      description: '503 unavailable when the database is unreachable.',
      response: { 200: Described(Health, 'The process is up and its database answers.') },
    },
  }, async () => {
    if (!(await database.ping())) {
      throw new ApiError('unavailable', 'The database is unreachable.', { headers: { 'Retry-After': '5' }, extensions: { database: 'unreachable' } });
    }
    return { status: 'ok' as const, version: VERSION, database: 'ok' as const };
  });

  const openapiDocument = {
    config: { auth: 'public' as const, unlimited: true },
    schema: { hide: true },
  };
  const sendYaml = async (_request: unknown, reply: { type(t: string): { send(body: string): unknown } }) =>
    reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true }));
  app.get('/openapi.yaml', openapiDocument, sendYaml);
  app.get('/docs/openapi.yaml', openapiDocument, sendYaml);
  const sendJson = async (_request: unknown, reply: { type(t: string): { send(body: string): unknown } }) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  app.get('/openapi.json', openapiDocument, sendJson);
  app.get('/docs/openapi.json', openapiDocument, sendJson);

  // The error pages at /docs/errors are src/modules/docs.
}
