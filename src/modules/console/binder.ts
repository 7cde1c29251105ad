// How a console page is bound. `signedInScope`'s one hook finds the session before any handler
// runs; a section binds its pages with `view` (GET) and `form`/`post` (POST) over a typed invoke as
// the session: a refusal becomes the form's errors, a not_found the section's 404 page, here only.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import type { App } from '../../http/types.ts';
import { ApiError } from '../../lib/errors.ts';
import { Html } from '../../lib/html.ts';
import type { Operation } from '../../operations/operation.ts';
import { capitalized, text } from './account/shared.ts';
import { actAsConsole } from './act.ts';
import { plainAnswer } from './conversations/live.ts';
import { sayFieldError } from './field-errors.ts';
import { contextOf, foreignPost, redirect, type SignedInContext } from './guard.ts';
import { fromOwnOrigin, registerFormParser, sendPage, type ConsoleHttp } from './http.ts';
import type { ConsoleSection } from './layout.ts';
import type { ConsoleModule } from './module.ts';
import { messagePage } from './pages.ts';
import type { ConsoleSession } from './service.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A console live stream (Server-Sent Events): signed out, it answers a plain 401 (no redirect). */
    consoleStream?: boolean;
  }
  interface FastifyRequest {
    /** The session the signed-in scope's hook found (the scope's console's; null outside a scope). */
    consoleSession: unknown;
  }
}

/** Routes of the signed-in scope: never in the API document, the session hook's checks instead of an API credential. */
const CONSOLE_ROUTE = { config: { auth: 'public' as const }, schema: { hide: true } };
export const STREAM_ROUTE = { config: { auth: 'public' as const, consoleStream: true }, schema: { hide: true } };

/** How a console finds its session: each answers for the caller (redirect, 401, 403) and gives null when there is none. */
export interface SessionGuard<S> {
  session(request: FastifyRequest): Promise<S | null>;
  page(request: FastifyRequest, reply: FastifyReply): Promise<S | null>;
  posted(request: FastifyRequest, reply: FastifyReply, csrfToken: string): Promise<S | null>;
}

/** Registers signed-in pages in one scope: the form parser and the session hook, once for all of them. */
export function signedInScope<S>(app: App, guard: SessionGuard<S>, register: (scope: App) => void): void {
  app.register(async (scope) => {
    registerFormParser(scope);
    scope.decorateRequest('consoleSession', null);
    // preHandler: a form's CSRF token is in its body, parsed by then.
    scope.addHook('preHandler', async (request, reply) => {
      const stream = request.routeOptions.config.consoleStream === true;
      const session = stream
        ? await guard.session(request)
        : request.method === 'POST'
          ? await guard.posted(request, reply, text(request.body, 'csrf_token'))
          : await guard.page(request, reply);
      if (session) {
        request.consoleSession = session;
        return;
      }
      if (stream) await plainAnswer(reply, 401, 'Sign in to the console first.');
      return reply;
    });
    register(scope);
  });
}

/** Registers signed-out pages (sign-in, sign-up) in one scope: the form parser, and a post from another site refused. */
export function signedOutScope(app: App, http: ConsoleHttp, register: (scope: App) => void): void {
  app.register(async (scope) => {
    registerFormParser(scope);
    scope.addHook('preHandler', async (request, reply) => {
      if (request.method === 'POST' && !fromOwnOrigin(request, http)) return foreignPost(reply);
    });
    register(scope);
  });
}

/** The session the hook found; only ever called in a signed-in scope (of the console whose session `S` is). */
export function sessionOf<S = ConsoleSession>(request: FastifyRequest): S {
  const session = request.consoleSession;
  if (!session) throw new Error('A signed-in console route ran outside the signed-in scope.');
  return session as S;
}

/** An operation's answer (what its run resolves to). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OutOf<Op> = Op extends Operation<TObject, infer Out, any> ? Awaited<Out> : never;
/** An operation's input by name; the values are checked by invoke (a form's text is what was typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InputOf<Op> = Op extends Operation<infer In, any, any> ? { [K in keyof Static<In>]?: unknown } : never;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ConsoleOperation = Operation<any, any, any>;
type Link = { href: string; text: string };

/** What a binding's functions get: the request, the session and its page context, the typed invoke. */
export interface Ask<S = ConsoleSession, C = SignedInContext> {
  request: FastifyRequest;
  reply: FastifyReply;
  session: S;
  context: C;
  /** The route's parameters, the query's and the form's text fields. */
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, string>;
  call<Op extends ConsoleOperation>(op: Op, input: InputOf<Op>): Promise<OutOf<Op>>;
  /** Sends a page with a status other than 200 (a form shown again with its errors). */
  send(status: number, page: Html): FastifyReply;
}

/** A form's refusal as its page shows it: what was typed, an error per field, a notice for the whole form. */
export interface Refusal {
  values: Record<string, string>;
  errors: Record<string, string>;
  notice?: string;
  status: number;
}

/** A refusal the console finds itself before calling (a field left empty): thrown from `input`, shown like the operation's. */
export class FormRefusal extends Error {
  readonly errors: Record<string, string>;
  readonly status: number;
  constructor(errors: Record<string, string>, status = 400) {
    super('The form is refused.');
    this.errors = errors;
    this.status = status;
  }
}

/** How a form names what a field wants, for the API's "must NOT have fewer than 1 characters". */
const WANTED: Record<string, string> = {
  name: 'Enter a name.',
  to: 'Enter a number in international form, like +14155550123.',
  body: 'Enter a message.',
  participant: 'Enter a number in international form, like +14155550123.',
  mode: 'Choose a broadcast or a ring.',
};
/** The forms' names of the API's fields, for a message that starts with the field ("to.3 must ..."). */
const LABELS: Record<string, string> = {
  name: 'The name',
  display_name: 'The name',
  to: 'The number',
  body: 'The message',
  participant: 'The number',
  numbers: 'The number',
  cell_ids: 'The cell',
  mode: 'The mode',
  start: 'The start',
  end: 'The end',
  time_zone: 'The time zone',
  url: 'The URL',
  amount_usd: 'The amount',
  tier: 'The plan',
  intent: 'What to pay for',
  event_types: 'The events',
};

/**
 * An operation's refusal as the form's errors: on their field (or the field `codeFields` names for
 * its code), else as the form's notice; null for not_found (the 404 page) and anything unexpected.
 */
export function refusalOf(
  error: unknown,
  values: Record<string, string>,
  codeFields: Record<string, string> = {},
  labels: Record<string, string> = {},
): Refusal | null {
  if (error instanceof FormRefusal) return { values, errors: error.errors, status: error.status };
  if (!(error instanceof ApiError) || error.code === 'not_found' || error.status >= 500) return null;
  const refusal: Refusal = { values, errors: {}, status: error.status };
  if (error.code === 'invalid_request' && error.errors?.length) {
    for (const { field, message } of error.errors) {
      const [name] = field.split(/[./]/);
      const wanted = field === name && /fewer than 1 characters|equal to one of the allowed values/.test(message);
      refusal.errors[name] ??=
        wanted && WANTED[name] ? WANTED[name] : sayFieldError(field, message, { ...LABELS, ...labels });
    }
  } else if (Object.hasOwn(codeFields, error.code)) refusal.errors[codeFields[error.code]] = error.message;
  else refusal.notice = error.message;
  return refusal;
}

/** A console's door: its session, its pages' context and message page, its invoke as the session. */
export interface Door<S, C, Section extends string> {
  context(session: S, section?: Section): C;
  call(session: S, op: ConsoleOperation, input: Record<string, unknown>): Promise<unknown>;
  messagePage(context: C, title: string, message: string, link?: Link): Html;
}

/** A section's binding: its page context's section, its way back, the thing its 404 names. */
export interface SectionOptions<C = SignedInContext, Section extends string = ConsoleSection> {
  /** The nav's current section (none: the consent page). */
  section?: Section;
  back: Link;
  /** What a not_found names by default ("pod": "Pod not found"). */
  missing: string;
  /** The section's own 404 page, instead of "<Missing> not found". */
  notFound?: (context: C, missing: string) => Html;
  /** An input the operations refuse (an id of the wrong form) names no such thing: the 404, like an unknown id. */
  invalidIsMissing?: boolean;
  /** The section's words for the API's fields in its form errors, beyond the console's ("The tier"). */
  labels?: Record<string, string>;
}

/** What a binding answers: a page (200), a location (303), or the reply it already sent. */
export type Answer = Html | string | FastifyReply;

/** Sends an answer: a page (200), a 303 to a location, or the reply already sent. */
export const answer = (reply: FastifyReply, given: Answer): FastifyReply | Promise<FastifyReply> =>
  given instanceof Html ? sendPage(reply, 200, given) : typeof given === 'string' ? redirect(reply, given) : given;

type BindOptions = Pick<PostSpec<never>, 'missing' | 'route'>;

export interface PostSpec<A> {
  /** The post's work (one or more calls); where to go after it, or a page. */
  run: (ask: A) => Promise<Answer>;
  /** The page again with a refusal (its status is the refusal's); without it, a refusal other than a 404 propagates. */
  page?: (ask: A, refusal: Refusal) => Promise<Html>;
  /** Codes the form shows on a field rather than as its notice. */
  codeFields?: Record<string, string>;
  /** What a not_found of this route names ("draft"). */
  missing?: string;
  /** Route options (a larger bodyLimit, an onSend hook). */
  route?: Record<string, unknown>;
}

export interface FormSpec<Op extends ConsoleOperation, A> extends Omit<PostSpec<A>, 'run'> {
  /** The operation's input from the form; may throw a FormRefusal. */
  input: (ask: A) => InputOf<Op>;
  page: NonNullable<PostSpec<A>['page']>;
  /** After the operation: where to go (303), or a page. */
  done: (ask: A, result: OutOf<Op>) => Answer | Promise<Answer>;
}

const texts = (fields: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries((fields ?? {}) as Record<string, unknown>).flatMap(([name, value]) =>
      typeof value === 'string' && name !== 'csrf_token' ? [[name, value]] : [],
    ),
  );

/** A section of the organization console: its sessions, its pages, invoke as the session's organization. */
export const consoleBinder = (scope: App, module: ConsoleModule, options: SectionOptions) =>
  new Binder(
    scope,
    {
      context: (session, section) => contextOf(session, section),
      call: (session, op, input) => actAsConsole(module.dashboard.invoker, session, op, input),
      messagePage,
    },
    options,
  );

export class Binder<S = ConsoleSession, C = SignedInContext, Section extends string = ConsoleSection> {
  private readonly scope: App;
  private readonly door: Door<S, C, Section>;
  private readonly options: SectionOptions<C, Section>;

  constructor(scope: App, door: Door<S, C, Section>, options: SectionOptions<C, Section>) {
    this.scope = scope;
    this.door = door;
    this.options = options;
  }

  /** A GET page: its content, or a refusal of the reading as the section's 404 or 400 page. */
  view(path: string, show: (ask: Ask<S, C>) => Promise<Answer>, options: BindOptions = {}): void {
    this.scope.get(path, { ...CONSOLE_ROUTE, ...options.route }, this.handler({ ...options, run: show }));
  }

  /** A form bound to one operation: input → invoke → 303 (or a page); a refusal → the page with the form's errors. */
  form<Op extends ConsoleOperation>(path: string, op: Op, spec: FormSpec<Op, Ask<S, C>>): void {
    this.post(path, { ...spec, run: async (ask) => spec.done(ask, await ask.call(op, spec.input(ask))) });
  }

  /** A form post whose work is more than one call. */
  post(path: string, spec: PostSpec<Ask<S, C>>): void {
    this.scope.post(path, { ...CONSOLE_ROUTE, ...spec.route }, this.handler(spec));
  }

  /** A route's answer; a refusal is the page again with its errors (with `page`), else the section's refusal page. */
  private handler(spec: PostSpec<Ask<S, C>>) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const ask = this.ask(request, reply);
      try {
        return await answer(reply, await spec.run(ask));
      } catch (error) {
        const refusal = spec.page && refusalOf(error, ask.body, spec.codeFields, this.options.labels);
        if (!refusal || !spec.page) return this.refused(ask, error, spec.missing);
        try {
          return await sendPage(reply, refusal.status, await spec.page(ask, refusal));
        } catch (again) {
          return this.refused(ask, again, spec.missing);
        }
      }
    };
  }

  /** The one mapping of a read's refusal: 404 (unknown or another organization's), 400 (a bad list link), 409. */
  private refused(
    ask: Ask<S, C>,
    error: unknown,
    missing = this.options.missing,
  ): FastifyReply | Promise<FastifyReply> {
    if (!(error instanceof ApiError)) throw error;
    const { back, notFound, invalidIsMissing } = this.options;
    const say = (status: number, title: string, message: string) =>
      sendPage(ask.reply, status, this.door.messagePage(ask.context, title, message, back));
    const badLink = error.code === 'invalid_request' && error.errors?.some((e) => e.field === 'cursor');
    if (error.code === 'not_found' || (error.code === 'invalid_request' && !badLink && invalidIsMissing)) {
      if (notFound) return sendPage(ask.reply, 404, notFound(ask.context, missing));
      return say(
        404,
        `${capitalized(missing)} not found`,
        `This ${missing} does not exist or belongs to another organization.`,
      );
    }
    if (badLink) return say(400, 'Page not found', 'This list link is not valid.');
    if (error.code === 'conflict' || error.code === 'billing_disabled')
      return say(409, 'Not possible right now', error.message);
    throw error;
  }

  /** The typed invoke as the session (for a route the binder does not answer, a live stream). */
  caller(session: S): Ask<S, C>['call'] {
    return (op, input) => this.door.call(session, op, input as Record<string, unknown>) as never;
  }

  private ask(request: FastifyRequest, reply: FastifyReply): Ask<S, C> {
    const session = sessionOf<S>(request);
    return {
      request,
      reply,
      session,
      context: this.door.context(session, this.options.section),
      params: texts(request.params),
      query: texts(request.query),
      body: texts(request.body),
      call: this.caller(session),
      send: (status, page) => sendPage(reply, status, page),
    };
  }
}
