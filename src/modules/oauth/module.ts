// OAuth 2.0 authorization server: clients, authorization requests and consent, tokens, grants,
// and access tokens as credentials of agent routes (wired into the organizations' authenticator).
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { PgListener, type ListenerLog } from '../../db/pg-listener.ts';
import type { DB } from '../../db/schema.ts';
import type { ResourceMetadataUrls } from '../../http/auth.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import { systemLookup, type Lookup } from '../../lib/ssrf.ts';
import { OAuthClients } from './clients.ts';
import { registerConsentRoutes } from './consent-routes.ts';
import { httpsDocumentFetcher, type DocumentFetcher } from './metadata-document.ts';
import { registerProtocolRoutes } from './protocol-routes.ts';
import { OAuthRepository, REVOCATIONS_CHANNEL } from './repository.ts';
import { OAuthService } from './service.ts';

/** Egress of Client ID Metadata Document fetches (tests replace them). */
export interface OAuthOptions {
  lookup?: Lookup;
  fetchDocument?: DocumentFetcher;
}

export interface OAuthModule {
  oauth: OAuthService;
  /** On PostgreSQL: hears revocations made by other processes, to drop cached tokens. */
  revocations: PgListener | null;
  clients: OAuthClients;
  /** Where each bearer resource's RFC 9728 metadata is (the 401 challenge names it). */
  resourceMetadata: ResourceMetadataUrls;
}

export function build(deps: { db: Kysely<DB>; clock: Clock; baseUrl: string; consoleUrl: string; allScopes: string[]; options?: OAuthOptions; pgClient: pg.ClientConfig | null; log: ListenerLog }): OAuthModule {
  const repo = new OAuthRepository(deps.db);
  const clients = new OAuthClients({
    repo,
    clock: deps.clock,
    allScopes: deps.allScopes,
    lookup: deps.options?.lookup ?? systemLookup,
    fetch: deps.options?.fetchDocument ?? httpsDocumentFetcher,
  });
  const oauth = new OAuthService({ repo, clock: deps.clock, clients, baseUrl: deps.baseUrl, consoleUrl: deps.consoleUrl, allScopes: deps.allScopes });
  const revocations = deps.pgClient ? new PgListener({ config: deps.pgClient, channel: REVOCATIONS_CHANNEL, onNotify: () => oauth.forgetTokens(), log: deps.log }) : null;
  const resourceMetadata = {
    v1: `${deps.baseUrl}/.well-known/oauth-protected-resource`,
    mcp: `${deps.baseUrl}/.well-known/oauth-protected-resource/mcp`,
  };
  return { oauth, clients, resourceMetadata, revocations };
}

export function register(app: App, module: OAuthModule, deps: { docsUrl: string }): void {
  const { revocations } = module;
  if (revocations) {
    app.addHook('onReady', () => revocations.start());
    app.addHook('onClose', () => revocations.stop());
  }
  registerProtocolRoutes(app, { oauth: module.oauth, clients: module.clients, docsUrl: deps.docsUrl });
  registerConsentRoutes(app, module.oauth);
}
