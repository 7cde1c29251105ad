// The organization's side of OAuth bound to REST: the consent operations (./operations.ts).
import { Described, NoContent } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import { AuthorizationRequest, type ConsentOperations, ConsentResult, GrantList } from './operations.ts';

const TAGS = ['OAuth'];

export function registerConsentRoutes(app: App, rest: RestBinder, ops: ConsentOperations): void {
  rest.bind(app, ops.getAuthorizationRequest, {
    method: 'GET',
    url: '/v1/oauth/requests/:request_id',
    tags: TAGS,
    response: Described(AuthorizationRequest, 'The authorization request.'),
  });
  rest.bind(app, ops.decideAuthorizationRequest, {
    method: 'POST',
    url: '/v1/oauth/consent',
    tags: TAGS,
    response: Described(ConsentResult, 'The decision is recorded; send the user to redirect_url.'),
  });
  rest.bind(app, ops.listOAuthGrants, {
    method: 'GET',
    url: '/v1/oauth/grants',
    operationId: 'listOAuthGrants',
    tags: TAGS,
    response: Described(GrantList, 'A page of active grants, newest first.'),
  });
  rest.bind(app, ops.revokeOAuthGrant, {
    method: 'DELETE',
    url: '/v1/oauth/grants/:grant_id',
    operationId: 'revokeOAuthGrant',
    tags: TAGS,
    response: NoContent('Revoked.'),
  });
}
