// The payment processor's deposit webhook and the operator's held deposits (see deposits.ts): the
// operations of ./deposits-operations.ts bound to REST.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../lib/errors.ts';
import { Described } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { RestBinder } from '../../operations/rest.ts';
import type { DepositsService } from './deposits.ts';
import { Deposit, DepositReport, type DepositOperations } from './deposits-operations.ts';
import { restRoutes } from '../../operations/rest-routes.ts';

/** The raw text of each webhook body: the signature is over the bytes, not the parsed JSON. */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function registerDepositRoutes(
  app: App,
  deposits: DepositsService,
  rest: RestBinder,
  ops: DepositOperations,
): void {
  app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      rawBodies.set(request, String(body));
      try {
        done(null, JSON.parse(String(body)));
      } catch {
        done(new ApiError('invalid_request', 'The body is not JSON.'), undefined);
      }
    });
    scope.post(
      '/v1/billing/x402/deposits',
      {
        config: { auth: 'public', errors: ['not_found'] },
        // Signed before anything else is looked at.
        preValidation: async (request) =>
          deposits.verify(request.headers['x-cellgate-signature'] as string | undefined, rawBodies.get(request) ?? ''),
        schema: {
          operationId: 'reportX402Deposit',
          tags: ['Billing'],
          summary: 'Report a deposit to a pay_to address (payment processor webhook)',
          description:
            'Signed with HMAC-SHA256 over "<t>.<raw body>" (CELLGATE_X402_DEPOSIT_SECRET) in X-Cellgate-Signature: t=<unix seconds>,v1=<hex>; 5 minutes of tolerance. ' +
            'Each deposit_id is applied once (a repeat answers 200 with the deposit as recorded). Credited to the organization that verified the sending wallet, else held for the operator.',
          body: DepositReport,
          response: {
            200: Described(Deposit, 'This deposit was already applied: as recorded.'),
            201: Described(Deposit, 'The deposit, credited or held.'),
          },
        },
      },
      async (request, reply) => {
        const { created, deposit } = await deposits.report(request.body);
        return reply.code(created ? 201 : 200).send(deposit);
      },
    );
  });

  const admin = restRoutes(app, rest, ['Admin']);
  admin(ops.listDeposits, 'GET', '/v1/admin/deposits', 'A page of deposits, newest first.');
  admin(ops.assignDeposit, 'POST', '/v1/admin/deposits/:id/assign', 'The deposit, now credited.');
}
