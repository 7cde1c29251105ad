// Shared HTTP types: the app instance with the TypeBox provider and route config (the principals are
// the operations', ../operations/principals.ts).
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ErrorCode } from '../lib/errors.ts';
import type { AdminPrincipal, AgentPrincipal, DevicePrincipal } from '../operations/principals.ts';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Which credential a route takes. `public` routes take none. */
export type Surface = 'public' | 'agent' | 'admin' | 'device' | 'smsgate';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The surface (credential) of the route; every route states it. */
    auth?: Surface;
    /** Agent routes an unverified organization may call (whoami, verify, status, billing reads). */
    allowUnverified?: boolean;
    /** OAuth scope the route needs (API keys carry every scope). */
    scope?: string;
    /** The scopes a 401's challenge names when the route has no single `scope` (the MCP endpoint). */
    challengeScope?: string;
    /** Only API keys, never OAuth access tokens (key management, OAuth consent and grants). */
    apiKeyOnly?: boolean;
    /** Extra per-IP bucket for abuse-prone public routes. */
    ipLimit?: 'sign_up' | 'sign_in';
    /**
     * Route takes an Idempotency-Key header (contract §2): set by the REST binder
     * (src/operations/rest.ts) on a route bound from an operation, whose invoke claims the key.
     * The OpenAPI document reads it (the header, the replay header, the idempotency errors).
     */
    idempotent?: 'operation';
    /** Device routes: false when a call is no sign of the phone app running (it does not bring the phone online). */
    presence?: false;
    /** Exempt from rate limiting (health, documentation). */
    unlimited?: boolean;
    /**
     * Error codes the route answers beyond those its surface, inputs and conventions imply
     * (src/http/openapi.ts derives those); they become its documented error responses.
     */
    errors?: ErrorCode[];
  }
  interface FastifyRequest {
    agent: AgentPrincipal | null;
    admin: AdminPrincipal | null;
    device: DevicePrincipal | null;
  }
}
