// The human pages: the landing at / and the error pages at /docs/errors (index) and
// /docs/errors/<code>, each also JSON for `Accept: application/json`. The reference at /docs
// itself is reference-routes.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { ApiError } from '../../lib/errors.ts';
import { documentedOperations } from '../../http/openapi.ts';
import { PUBLIC_PAGE } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import type { Html } from '../../lib/html.ts';
import { VERSION } from '../system/routes.ts';
import { errorCatalogue, isErrorCode, type ErrorEntry, type Landing } from './catalogue.ts';
import { errorIndexPage, errorPage, landingPage, unknownErrorPage } from './pages.ts';

/** JSON when the client asks for JSON and not for HTML; HTML otherwise (browsers, curl). */
function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /application\/([a-z.+-]*\+)?json/i.test(accept) && !/text\/html/i.test(accept);
}

const sendHtml = (reply: FastifyReply, body: Html, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(body.toString());

export function registerDocsRoutes(app: App, config: Config): void {
  // Built on first use: every route (and so every operation) is added by then.
  let catalogue: Map<string, ErrorEntry> | undefined;
  const entries = () =>
    (catalogue ??= new Map(
      errorCatalogue(documentedOperations(app), config.docsUrl, config.baseUrl).map((e) => [e.code, e]),
    ));

  app.get('/docs/errors', PUBLIC_PAGE, async (request, reply) => {
    const all = [...entries().values()];
    if (wantsJson(request)) {
      return reply.send({
        errors: all.map(({ code, title, status, meaning }) => ({
          code,
          title,
          status,
          meaning,
          url: `${config.docsUrl}/errors/${code}`,
        })),
      });
    }
    return sendHtml(reply, errorIndexPage(all));
  });

  app.get('/docs/errors/:code', PUBLIC_PAGE, async (request, reply) => {
    const { code } = request.params as { code: string };
    const entry = isErrorCode(code) ? entries().get(code) : undefined;
    if (wantsJson(request)) {
      if (!entry) throw new ApiError('not_found', 'No such error code; GET /docs/errors lists them.');
      return reply.send(entry);
    }
    return entry ? sendHtml(reply, errorPage(entry)) : sendHtml(reply, unknownErrorPage(code.slice(0, 64)), 404);
  });

  const landing: Landing = {
    name: 'Cellgate',
    version: VERSION,
    links: {
      docs: config.docsUrl,
      errors: `${config.docsUrl}/errors`,
      console: config.consoleUrl,
      health: `${config.baseUrl}/health`,
      openapi: `${config.baseUrl}/openapi.yaml`,
      sign_in: `${config.consoleUrl}/sign-in`,
      mcp: `${config.baseUrl}/mcp`,
      sign_up: `${config.baseUrl}/v1/agent/sign-up`,
    },
    base_url: config.baseUrl,
  };
  app.get('/', PUBLIC_PAGE, async (request, reply) =>
    wantsJson(request) ? reply.send(landing) : sendHtml(reply, landingPage(landing)),
  );
}
