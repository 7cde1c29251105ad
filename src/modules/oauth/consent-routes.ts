// The organization's side of OAuth bound to REST: the consent operations (./operations.ts).
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { restRoutes } from '../../operations/rest-routes.ts';
import type { ConsentOperations } from './operations.ts';

export function registerConsentRoutes(app: App, rest: RestBinder, ops: ConsentOperations): void {
  const oauth = restRoutes(app, rest, ['OAuth']);
  const decided = 'The decision is recorded; send the user to redirect_url.';
  oauth(ops.getAuthorizationRequest, 'GET', '/v1/oauth/requests/:request_id', 'The authorization request.');
  oauth(ops.decideAuthorizationRequest, 'POST', '/v1/oauth/consent', decided);
  oauth(ops.listOAuthGrants, 'GET', '/v1/oauth/grants', 'A page of active grants, newest first.', {
    operationId: 'listOAuthGrants',
  });
  oauth(ops.revokeOAuthGrant, 'DELETE', '/v1/oauth/grants/:grant_id', 'Revoked.', { operationId: 'revokeOAuthGrant' });
}
