// Sign-up, verification, whoami and API keys (contract §3).
import { Type } from 'typebox';
import { agentOf } from '../../http/auth.ts';
import { NextCursor, PaginationQuery } from '../../http/pagination.ts';
import { Body, IdParam, Nullable, Timestamp } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { OrganizationsService } from './service.ts';

const OrganizationStatus = Type.Enum(['unverified', 'active', 'suspended']);

const KeySummary = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'First characters of the key, safe to display.' }),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
});

const ApiKey = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
});

const SignUpRequest = Body({
  email: Type.String({ format: 'email', maxLength: 254 }),
  organization_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});

const SignUpResponse = Type.Object({
  organization_id: Type.String(),
  api_key: Type.String({ description: 'cg_live_... Shown once; store it now.' }),
  status: Type.Literal('unverified'),
  verification: Type.Object({
    channel: Type.Literal('email'),
    sent_to: Type.String(),
    expires_at: Timestamp,
  }),
});

export function registerOrganizationRoutes(app: App, organizations: OrganizationsService): void {
  app.post('/v1/agent/sign-up', {
    config: { auth: 'public', ipLimit: 'sign_up' },
    schema: {
      tags: ['Organizations'],
      summary: 'Register an organization',
      description: 'Creates an unverified organization and its first API key, and emails a 6-digit code. Signing up again with an unverified email rotates the key and sends a new code.',
      body: SignUpRequest,
      response: { 201: SignUpResponse },
    },
  }, async (request, reply) => reply.code(201).send(await organizations.signUp(request.body)));

  app.post('/v1/agent/verify', {
    config: { auth: 'agent', allowUnverified: true },
    schema: {
      tags: ['Organizations'],
      summary: 'Verify the organization with the emailed code',
      body: Body({ code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code.' }) }),
      response: { 200: Type.Object({ organization_id: Type.String(), status: Type.Literal('active') }) },
    },
  }, async (request) => organizations.verify(agentOf(request), request.body.code));

  app.get('/v1/auth/whoami', {
    config: { auth: 'agent', allowUnverified: true },
    schema: {
      tags: ['Organizations'],
      summary: 'Identify the calling credential',
      response: {
        200: Type.Object({
          organization_id: Type.String(),
          organization_name: Type.String(),
          status: OrganizationStatus,
          key: KeySummary,
          credential_type: Type.Enum(['api_key', 'oauth_token']),
          scopes: Type.Array(Type.String()),
        }),
      },
    },
  }, async (request) => organizations.whoami(agentOf(request)));

  app.get('/v1/auth/keys', {
    config: { auth: 'agent' },
    schema: {
      tags: ['Organizations'],
      summary: 'List active API keys',
      querystring: Type.Object(PaginationQuery),
      response: { 200: Type.Object({ keys: Type.Array(ApiKey), next_cursor: NextCursor }) },
    },
  }, async (request) => organizations.listKeys(agentOf(request).organizationId, request.query));

  app.post('/v1/auth/keys', {
    config: { auth: 'agent' },
    // The body is optional: an absent one means no name.
    preValidation: async (request) => {
      request.body ??= {};
    },
    schema: {
      tags: ['Organizations'],
      summary: 'Create an API key',
      description: 'The key is shown once. Rotate by creating a new key, then revoking the old one.',
      body: Type.Optional(Body({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) })),
      response: { 201: Type.Object({ ...ApiKey.properties, api_key: Type.String() }) },
    },
  }, async (request, reply) => reply.code(201).send(await organizations.createKey(agentOf(request).organizationId, request.body?.name ?? null)));

  app.delete('/v1/auth/keys/:key_id', {
    config: { auth: 'agent' },
    schema: {
      tags: ['Organizations'],
      summary: 'Revoke an API key',
      params: IdParam('key_id', 'key'),
      response: { 204: Type.Null() },
    },
  }, async (request, reply) => {
    await organizations.revokeKey(agentOf(request).organizationId, request.params.key_id);
    return reply.code(204).send(null);
  });
}
