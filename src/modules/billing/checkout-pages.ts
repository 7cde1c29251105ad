// The card checkout's pages (the local processor's Pay page, and what a checkout link shows once
// it is paid, expired, refused or unknown): the console's look, the payment in words, and always a
// way back to Billing in the console. No script: a form and links.
import { html, type Html } from '../../lib/html.ts';
import { CONSOLE_PATH } from '../console/http.ts';
import { time } from '../console/conversations/format.ts';
import { layout } from '../console/layout.ts';
import type { CheckoutPage } from './checkout.ts';
import { micros, usdString } from './money.ts';
import type { PaymentsTable } from './tables.ts';

/** Where a checkout page leads back to: Billing in the console (which shows the payment's outcome). */
export const BILLING_PATH = `${CONSOLE_PATH}/billing`;

type Described = Pick<PaymentsTable, 'intent' | 'tier' | 'cell_id' | 'amount_micros'>;

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `$25.00`. */
export const amountOf = (payment: Pick<PaymentsTable, 'amount_micros'>) =>
  `$${usdString(micros(payment.amount_micros))}`;

/** What a payment pays for, in words: a short name and a sentence. */
export function paymentWords(payment: Described): { name: string; sentence: string } {
  const amount = amountOf(payment);
  const plan = payment.tier ? `${capitalized(payment.tier)} plan` : 'Plan';
  switch (payment.intent) {
    case 'setup':
      return { name: `${plan} setup`, sentence: `The first month of the ${plan}, which starts it at once.` };
    case 'renewal':
      return payment.cell_id
        ? { name: 'Cell renewal', sentence: `One more month of the cell ${payment.cell_id}.` }
        : { name: `${plan} renewal`, sentence: `The next month of the ${plan}.` };
    case 'top_up':
      return {
        name: `Top up ${amount}`,
        sentence: `${amount} added to the organization's prepaid balance, which pays for messages and renewals.`,
      };
    case 'reinstate':
      return {
        name: 'Reinstatement',
        sentence: 'The amount due, which lets a suspended or past-due organization send and create cells again.',
      };
    case 'create_cell':
      return { name: 'One more cell', sentence: 'A cell-month, used by the next cell you create.' };
  }
}

const backLink = (text = 'Back to Billing') => html`<a class="button secondary" href="${BILLING_PATH}">${text}</a>`;

/** The way back to where the payment started (a console path, checked by safeNext), before Billing. */
const continueLink = (back: string | undefined, text: string) =>
  back && html`<a class="button primary" href="${back}">${text}</a>`;

function facts(payment: PaymentsTable, options: { expires: boolean }): Html {
  const { name } = paymentWords(payment);
  return html`<dl class="facts">
<dt>For</dt><dd>${name}</dd>
<dt>Amount</dt><dd><strong>${amountOf(payment)}</strong> (US dollars)</dd>
${options.expires ? html`<dt>Open until</dt><dd>${time(payment.expires_at)}</dd>` : ''}
<dt>Payment</dt><dd class="mono">${payment.id}</dd>
</dl>`;
}

const page = (title: string, content: Html) =>
  layout({ path: CONSOLE_PATH }, title, html`<div class="card checkout">\n${content}\n</div>`);

/**
 * A checkout page of the local card processor; `action` is the page's own URL (the Pay form posts
 * there, keeping its `return`); `back` the console page the payment started from (the create-cell
 * form, a thread), already checked to be one of the console's own paths.
 */
export function checkoutPage(state: CheckoutPage, action: string, back?: string): Html {
  if (state.kind === 'unknown') {
    return page(
      'Checkout not found',
      html`<h1>Checkout not found</h1>
<p>This checkout link is not valid: it may be mistyped, or belong to another card processor. Start a new payment from Billing.</p>
<div class="actions">${backLink()}</div>`,
    );
  }
  const { payment } = state;
  const { name, sentence } = paymentWords(payment);
  const amount = amountOf(payment);
  switch (state.kind) {
    case 'pay':
      return page(
        `Pay ${amount}: ${name}`,
        html`<h1>Pay ${amount} by card</h1>
<p class="lead">${name}. ${sentence}</p>
${facts(payment, { expires: true })}
<p class="notice info">This is the deployment's built-in card page for development: no card is asked for or charged. Paying credits the organization at once.</p>
<form method="post" action="${action}">
<div class="actions">
<button type="submit" class="primary">Pay ${amount}</button>
${back ? html`<a class="button secondary" href="${back}">Cancel and go back</a>` : backLink('Cancel and go back to Billing')}
</div>
</form>`,
      );
    case 'paid':
      return page(
        `Paid: ${name}`,
        html`<h1>Paid: ${name}</h1>
<p class="notice ok" role="status">${amount} paid. ${sentence}</p>
${facts(payment, { expires: false })}
<div class="actions">${continueLink(back, 'Continue where you left off')}${backLink()}</div>`,
      );
    case 'expired':
      return page(
        `Checkout expired: ${name}`,
        html`<h1>This checkout expired</h1>
<p>${name} (${amount}) was not paid before ${time(payment.expires_at)}; nothing was charged. Start a new payment from Billing.</p>
${facts(payment, { expires: false })}
<div class="actions">${backLink()}</div>`,
      );
    case 'refused':
      return page(
        `Not paid: ${name}`,
        html`<h1>Not paid: ${name}</h1>
<p class="notice error" role="alert">${state.detail}</p>
<p>Nothing was charged or credited.</p>
${facts(payment, { expires: false })}
<div class="actions">${backLink()}</div>`,
      );
  }
}
