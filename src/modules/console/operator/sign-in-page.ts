// The operator's sign-in: one field, the admin token (a password input: never shown, never kept
// by the browser's form history).
import { html, type Html } from '../../../lib/html.ts';
import { field, hidden } from '../layout.ts';
import { operatorLayout } from './layout.ts';

export function operatorSignInPage(form: { next?: string; error?: string }): Html {
  return operatorLayout(
    { session: null },
    form.error ? 'Error: Operator sign-in' : 'Operator sign-in',
    html`<div class="card">
<h1>Sign in to the operator console</h1>
<p class="lead">Enter an admin token (<span class="mono">cg_adm_…</span>): the bootstrap token of CELLGATE_ADMIN_TOKEN, or one made with <span class="mono">cellgate admin create-token</span>.</p>
<form method="post" action="/console/operator/sign-in" novalidate>
${field({ id: 'admin-token', name: 'admin_token', label: 'Admin token', type: 'password', error: form.error, attributes: html`autocomplete="off" spellcheck="false" maxlength="512"` })}
${form.next ? hidden('next', form.next) : ''}
<button type="submit" class="primary">Sign in</button>
</form>
<p class="small after">An organization signs in to <a href="/console/sign-in">the console</a> with its email instead.</p>
</div>`,
  );
}
