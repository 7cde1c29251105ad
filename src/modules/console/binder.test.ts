import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../lib/errors.ts';
import { html } from '../../lib/html.ts';
import type { Invoker } from '../../operations/invoke.ts';
import { defineOperation } from '../../operations/operation.ts';
import { consoleBinder, FormRefusal, refusalOf, sessionOf, signedInScope, STREAM_ROUTE } from './binder.ts';
import type { ConsoleModule } from './module.ts';
import type { ConsoleSession } from './service.ts';

const SESSION = {
  organizationId: 'org_1',
  organizationName: 'Acme',
  organizationEmail: 'ops@acme.test',
  csrfToken: 'csrf-ok',
} as ConsoleSession;

/** An operation that answers by its input's `outcome`: a thing, or the refusal it names. */
const getThing = defineOperation({
  name: 'get_thing',
  summary: '',
  description: '',
  scope: null,
  idempotency: 'none',
  errors: [],
  input: Type.Object({ id: Type.String(), outcome: Type.Optional(Type.String()) }),
  output: Type.Object({}),
  run: async (_ctx, input) => {
    if (input.outcome === 'missing') throw new ApiError('not_found', 'No such thing.');
    if (input.outcome === 'bad')
      throw new ApiError('invalid_request', 'name must NOT have fewer than 1 characters', {
        errors: [{ field: 'name', code: 'too_short', message: 'name must NOT have fewer than 1 characters' }],
      });
    if (input.outcome === 'taken') throw new ApiError('conflict', 'That name is taken.');
    if (input.outcome === 'broken') throw new Error('boom');
    return { id: input.id, name: 'Thing' };
  },
});

/** The guard's answers as consoleGuard gives them: a session when the cookie says `ok`, the CSRF token checked. */
const guard = {
  session: async (request: FastifyRequest) => (request.headers.cookie === 'cg_console=ok' ? SESSION : null),
  async page(request: FastifyRequest, reply: FastifyReply) {
    const session = await guard.session(request);
    if (!session)
      await reply
        .code(303)
        .header('location', `/console/sign-in?next=${encodeURIComponent(request.url)}`)
        .send();
    return session;
  },
  async posted(request: FastifyRequest, reply: FastifyReply, csrf: string) {
    const session = await guard.session(request);
    if (!session || csrf !== session.csrfToken) {
      await reply.code(session ? 403 : 401).send('refused');
      return null;
    }
    return session;
  },
};

const invoker = {
  invoke: async (op: typeof getThing, _principal: unknown, input: Record<string, unknown>) => ({
    replayed: false,
    value: await op.run({} as never, input as never),
  }),
} as unknown as Invoker;

const module = { guard, dashboard: { invoker } } as unknown as ConsoleModule;

describe('console binder', () => {
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  before(async () => {
    signedInScope(app, guard, (scope) => {
      const bind = consoleBinder(scope, module, {
        section: 'pods',
        back: { href: '/console/things', text: 'See your things' },
        missing: 'thing',
      });
      bind.view('/console/things/:id', async ({ call, params, query }) => {
        const thing = await call(getThing, { id: params.id, outcome: query.outcome });
        return html`<h1>${(thing as { name: string }).name}</h1>`;
      });
      bind.form('/console/things/:id', getThing, {
        input: ({ params, body }) => {
          if (body.name === '') throw new FormRefusal({ name: 'Enter a name.' });
          return { id: params.id, outcome: body.outcome };
        },
        page: async (_ask, refusal) =>
          html`<form><p>${refusal.notice}</p><p id="name-error">${refusal.errors.name}</p><input value="${refusal.values.name}"></form>`,
        done: ({ params }) => `/console/things/${params.id}?saved=1`,
      });
      scope.get(
        '/console/things/live',
        STREAM_ROUTE,
        async (request) => `stream of ${sessionOf(request).organizationId}`,
      );
    });
    await app.ready();
  });
  after(() => app.close());

  const get = (url: string, signedIn = true) =>
    app.inject({ method: 'GET', url, headers: signedIn ? { cookie: 'cg_console=ok' } : {} });
  const post = (url: string, fields: Record<string, string>, signedIn = true) =>
    app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(signedIn ? { cookie: 'cg_console=ok' } : {}),
      },
      payload: new URLSearchParams(fields).toString(),
    });

  it('runs the session hook before every route of the scope', async () => {
    const signedOut = await get('/console/things/t1?outcome=x', false);
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, '/console/sign-in?next=%2Fconsole%2Fthings%2Ft1%3Foutcome%3Dx');
    assert.equal((await post('/console/things/t1', { csrf_token: 'csrf-ok' }, false)).statusCode, 401);
    assert.equal((await post('/console/things/t1', { csrf_token: 'stale' })).statusCode, 403);
    assert.equal((await post('/console/things/t1', {})).statusCode, 403);
    const stream = await get('/console/things/live', false);
    assert.equal(stream.statusCode, 401);
    assert.equal(stream.body, 'Sign in to the console first.');
    assert.equal((await get('/console/things/live')).body, 'stream of org_1');
  });

  it('shows a view, and a not_found as the section’s 404 page', async () => {
    const page = await get('/console/things/t1');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /text\/html/);
    assert.equal(page.body, '<h1>Thing</h1>');
    const missing = await get('/console/things/t1?outcome=missing');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Thing not found/);
    assert.match(missing.body, /This thing does not exist or belongs to another organization\./);
    assert.match(missing.body, /href="\/console\/things">See your things/);
    const taken = await get('/console/things/t1?outcome=taken');
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /Not possible right now/);
  });

  it('answers a form with a 303, or its page with the refusal on its fields', async () => {
    const done = await post('/console/things/t1', { csrf_token: 'csrf-ok', name: 'x' });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/console/things/t1?saved=1');
    const bad = await post('/console/things/t1', { csrf_token: 'csrf-ok', name: 'x', outcome: 'bad' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /<p id="name-error">Enter a name\.<\/p>/);
    const empty = await post('/console/things/t1', { csrf_token: 'csrf-ok', name: '' });
    assert.equal(empty.statusCode, 400);
    assert.match(empty.body, /<p id="name-error">Enter a name\.<\/p><input value="">/);
    const taken = await post('/console/things/t1', { csrf_token: 'csrf-ok', name: '<b>', outcome: 'taken' });
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /<p>That name is taken\.<\/p>/);
    assert.match(taken.body, /value="&#60;b&#62;"/, 'what was typed comes back, escaped');
    const missing = await post('/console/things/t1', { csrf_token: 'csrf-ok', name: 'x', outcome: 'missing' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Thing not found/);
    assert.equal((await post('/console/things/t1', { csrf_token: 'csrf-ok', outcome: 'broken' })).statusCode, 500);
  });
});

describe('refusalOf', () => {
  const values = { name: 'x' };
  it('says a field error in the form’s words, a list item by its line', () => {
    const error = new ApiError('invalid_request', 'bad', {
      errors: [
        { field: 'to.3', code: 'pattern', message: 'to.3 must match pattern "^\\+"' },
        { field: 'url', code: 'format', message: 'url must be an https URL' },
        { field: 'mode', code: 'enum', message: 'mode must be equal to one of the allowed values' },
      ],
    });
    assert.deepEqual(refusalOf(error, values), {
      values,
      status: 400,
      errors: {
        to: 'Line 4: must match pattern "^\\+"',
        url: 'The URL must be an https URL',
        mode: 'Choose a broadcast or a ring.',
      },
    });
  });
  it('takes a section’s own words for a field', () => {
    const error = new ApiError('invalid_request', 'bad', {
      errors: [{ field: 'tier', code: 'enum', message: 'tier must be one of starter, pro' }],
    });
    assert.equal(refusalOf(error, values)?.errors.tier, 'The plan must be one of starter, pro');
    assert.equal(
      refusalOf(error, values, {}, { tier: 'The tier' })?.errors.tier,
      'The tier must be one of starter, pro',
    );
  });
  it('puts a named code on its field and any other refusal in the notice; not a 404 or a 5xx', () => {
    assert.deepEqual(refusalOf(new ApiError('cell_in_pod', 'In a pod.'), values, { cell_in_pod: 'cell_ids' })?.errors, {
      cell_ids: 'In a pod.',
    });
    assert.equal(refusalOf(new ApiError('conflict', 'Taken.'), values)?.notice, 'Taken.');
    assert.equal(refusalOf(new ApiError('not_found', 'No.'), values), null);
    assert.equal(refusalOf(new ApiError('internal_error', 'Oops.'), values), null);
    assert.equal(refusalOf(new Error('boom'), values), null);
  });
});
