// Sign-up in the browser (/console/sign-up): email and organization name, through invoke with the
// same sign_up operation as POST /v1/agent/sign-up, as the anonymous caller (the verification code
// is emailed, the first API key is made and shown once); then the emailed code, through the
// verify operation as POST /v1/agent/verify, with that key as the credential; a verified
// organization is signed in to the console and led to its first cell. Between the two pages the
// key waits in a cookie (HttpOnly, SameSite=Strict, on /console/sign-up only, 10 minutes: the code's life).
import type { FastifyReply } from 'fastify';
import type { App } from '../../http/types.ts';
import { ApiError } from '../../lib/errors.ts';
import { html, type Html } from '../../lib/html.ts';
import { ANONYMOUS } from '../../operations/operation.ts';
import { organizationOperations } from '../organizations/operations.ts';
import { HIDDEN, PUBLIC, text } from './account/shared.ts';
import { signedOutScope } from './binder.ts';
import { contextOf, redirect } from './guard.ts';
import { CONSOLE_PATH, cookie, readCookie, sendPage, sessionCookies } from './http.ts';
import { field, hidden, layout, secretField, type PageContext } from './layout.ts';
import { codeSentLead, type MailNotice } from './mail-notice.ts';
import type { ConsoleModule } from './module.ts';
import { EMAIL_ERROR, looksLikeEmail, messagePage } from './pages.ts';

const SIGN_UP_PATH = `${CONSOLE_PATH}/sign-up`;
const KEY_COOKIE = 'cg_console_sign_up';
const ORGANIZATION_NAME_MAX = 100;

type SignUpForm = {
  email?: string;
  organizationName?: string;
  errors?: { email?: string; organization_name?: string };
};

function signUpPage(context: PageContext, form: SignUpForm): Html {
  const errors = form.errors ?? {};
  return layout(
    context,
    errors.email || errors.organization_name ? 'Error: Sign up' : 'Sign up',
    html`<div class="card">
<h1>Create a Cellgate organization</h1>
<p class="lead">Your organization holds your cells (phone lines), API keys and billing. We will email you a 6-digit code to confirm the address.</p>
<form method="post" action="${SIGN_UP_PATH}" novalidate>
${field({ id: 'email', name: 'email', label: 'Email address', type: 'email', value: form.email, error: errors.email, attributes: html`autocomplete="email" spellcheck="false" maxlength="254"` })}
${field({ id: 'organization-name', name: 'organization_name', label: 'Organization name', type: 'text', value: form.organizationName, hint: `Your company or project, as your team will recognize it (up to ${ORGANIZATION_NAME_MAX} characters).`, error: errors.organization_name, attributes: html`autocomplete="organization" maxlength="${ORGANIZATION_NAME_MAX}"` })}
<button type="submit" class="primary">Sign up</button>
</form>
<p class="small after">Already have an organization? <a href="${CONSOLE_PATH}/sign-in">Sign in</a>.</p>
</div>`,
  );
}

/** `apiKey`: shown for as long as the sign-up waits for its code; `replaced`: an earlier sign-up of the email stopped working. */
function signUpCodePage(
  context: PageContext,
  form: { email: string; notice: MailNotice; apiKey?: string; replaced?: boolean; error?: string },
): Html {
  return layout(
    context,
    form.error ? 'Error: Confirm your email' : 'Confirm your email',
    html`<div class="card">
<h1>${form.notice.mailed ? 'Check your email' : 'Enter your code'}</h1>
${codeSentLead(form.email, form.notice)}
${form.replaced && html`<p class="notice info" id="replaced">This email already had a sign-up waiting for its code. This sign-up replaced it: the earlier API key and code no longer work. Use the key and code of this page.</p>`}
${
  form.apiKey &&
  html`<section aria-labelledby="key-heading">
<h2 id="key-heading">Your first API key</h2>
<p>Agents call the API and MCP with it. Copy it somewhere safe before you leave this page: it is not shown again once the email is confirmed (you can make more under API keys).</p>
<div class="field reveal">${secretField({ id: 'api-key', label: 'API key', secret: form.apiKey })}</div>
</section>`
}
<form method="post" action="${SIGN_UP_PATH}/verify" novalidate>
${field({ id: 'code', name: 'code', label: 'Verification code', type: 'text', hint: form.notice.mailed ? 'The 6 digits from the email.' : 'The 6 digits of the code.', error: form.error, attributes: html`class="code-input" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" spellcheck="false"` })}
${hidden('email', form.email)}
<button type="submit" class="primary">Confirm and open the console</button>
</form>
<p class="small after">No code? <a href="${SIGN_UP_PATH}">Sign up again with the same address</a> for a new one (that replaces this sign-up and its key).</p>
</div>`,
  );
}

export function registerSignUpPages(app: App, module: ConsoleModule): void {
  const { http, guard } = module;
  const { organizations, invoker } = module.dashboard;
  const { signUp, verifyOrganization } = organizationOperations(organizations);
  const keyCookie = (key: string | null) => cookie(http, KEY_COOKIE, SIGN_UP_PATH, key, 600);
  const signedOut = contextOf(null);
  const startAgain = (reply: FastifyReply, title: string, message: string) =>
    sendPage(reply, 400, messagePage(signedOut, title, message, { href: SIGN_UP_PATH, text: 'Sign up again' }));

  signedOutScope(app, http, (scope) => {
    scope.get(SIGN_UP_PATH, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      if (await guard.session(request)) return redirect(reply, `${CONSOLE_PATH}/cells`);
      return sendPage(reply, 200, signUpPage(signedOut, {}));
    });

    scope.post(SIGN_UP_PATH, { config: { ...PUBLIC, ipLimit: 'sign_up' }, schema: HIDDEN }, async (request, reply) => {
      const email = text(request.body, 'email').trim();
      const organizationName = text(request.body, 'organization_name').trim();
      const refuse = (status: number, errors: SignUpForm['errors']) =>
        sendPage(reply, status, signUpPage(signedOut, { email, organizationName, errors }));
      const errors: NonNullable<SignUpForm['errors']> = {};
      if (!looksLikeEmail(email)) errors.email = EMAIL_ERROR;
      if (organizationName === '') errors.organization_name = 'Enter the name of your organization.';
      else if (organizationName.length > ORGANIZATION_NAME_MAX)
        errors.organization_name = `The name is too long (at most ${ORGANIZATION_NAME_MAX} characters).`;
      if (errors.email || errors.organization_name) return refuse(400, errors);
      // Signing up again before confirming replaces the waiting sign-up (its key and code stop
      // working): the code page says so (docs/decisions.md, "Signing up again").
      const replaced = (await organizations.findByEmail(email.toLowerCase()))?.status === 'unverified';
      let signedUp: Awaited<ReturnType<typeof organizations.signUp>>;
      try {
        const outcome = await invoker.invoke<typeof signedUp>(signUp, ANONYMOUS, {
          email,
          organization_name: organizationName,
        });
        if (outcome.replayed) throw new Error('sign-up takes no idempotency key: nothing to replay');
        signedUp = outcome.value;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        // invalid_request: an email the form's check lets through and the operation's `format:
        // email` does not (the name's limits are the form's own).
        const said: Record<string, string> = {
          invalid_request: EMAIL_ERROR,
          conflict: `${error.message} Sign in instead.`,
          unavailable: error.message,
        };
        if (!Object.hasOwn(said, error.code)) throw error;
        return refuse(error.status, { email: said[error.code] });
      }
      const sentTo = signedUp.verification.sent_to;
      reply.header('set-cookie', keyCookie(signedUp.api_key));
      const notice = await module.mailNotice(sentTo);
      return sendPage(
        reply,
        200,
        signUpCodePage(signedOut, { email: sentTo, apiKey: signedUp.api_key, notice, replaced }),
      );
    });

    scope.post(`${SIGN_UP_PATH}/verify`, { config: PUBLIC, schema: HIDDEN }, async (request, reply) => {
      const email = text(request.body, 'email').trim().slice(0, 254);
      const code = text(request.body, 'code').replace(/\s/g, '');
      // The organization behind the cookie's key (none without one, or once it is revoked).
      const key = readCookie(request, KEY_COOKIE);
      const principal = key && key.length <= 128 ? await organizations.authenticate(key) : null;
      if (principal?.organizationStatus !== 'unverified')
        return startAgain(
          reply,
          'Sign-up not found',
          'This browser has no sign-up waiting for a code: it was confirmed, it is older than 10 minutes, or it was started again elsewhere. Sign up again with the same email for a new code, or sign in if the organization is confirmed.',
        );
      // A wrong code keeps the page as it was: the key (still the cookie's, still valid) and the
      // notice; the outbox's code only for the email of this sign-up's own organization.
      const again = async (error: string) => {
        const own = (await organizations.findByEmail(email.toLowerCase()))?.id === principal.organizationId;
        const notice = await module.mailNotice(email, own);
        return sendPage(reply, 400, signUpCodePage(signedOut, { email, apiKey: key, notice, error }));
      };
      if (!/^\d{6}$/.test(code)) return again('Enter the 6 digits of the code.');
      try {
        await invoker.invoke(verifyOrganization, principal, { code });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_code') return again(error.message);
        if (!(error instanceof ApiError && error.code === 'code_expired')) throw error;
        reply.header('set-cookie', keyCookie(null));
        return startAgain(reply, 'Code no longer valid', error.message);
      }
      const token = await module.console.openSession(principal.organizationId);
      if (!token) throw new Error('a verified organization could not open a console session');
      reply.header('set-cookie', [keyCookie(null), ...sessionCookies(http, token)]);
      return redirect(reply, `${CONSOLE_PATH}/cells/new?welcome=1`);
    });
  });
}
