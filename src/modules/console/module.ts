// The console at /console: sign-in with an emailed code into a session cookie, the consent page
// of OAuth authorization requests, the organization's grants; and the API route that decides a
// consent with that session (POST /v1/oauth/consent/session).
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { App } from '../../http/types.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Mailer } from '../../lib/mailer.ts';
import type { OAuthService } from '../oauth/service.ts';
import { registerSessionConsentRoute } from './consent-session-route.ts';
import { consoleHttp, type ConsoleHttp } from './http.ts';
import { ConsoleRepository } from './repository.ts';
import { registerConsoleRoutes } from './routes.ts';
import { ConsoleService } from './service.ts';

export interface ConsoleModule {
  console: ConsoleService;
  oauth: OAuthService;
  clock: Clock;
  http: ConsoleHttp;
}

export function build(deps: { db: Kysely<DB>; clock: Clock; mailer: Mailer; log: FastifyBaseLogger; oauth: OAuthService; consoleUrl: string; baseUrl: string }): ConsoleModule {
  const service = new ConsoleService({ repo: new ConsoleRepository(deps.db), clock: deps.clock, mailer: deps.mailer, log: deps.log, consoleUrl: deps.consoleUrl });
  return { console: service, oauth: deps.oauth, clock: deps.clock, http: consoleHttp(deps.consoleUrl, deps.baseUrl) };
}

export function register(app: App, module: ConsoleModule): void {
  registerConsoleRoutes(app, module);
  registerSessionConsentRoute(app, module);
}
