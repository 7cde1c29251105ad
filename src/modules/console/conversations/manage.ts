// Managing cells from the console: create one (through the create_cell operation, so its 402 is
// the API's: the payment is shown in the page with a button that pays it by card), rename one,
// and release one after a confirmation page. Forms carry the session's CSRF token; another
// organization's cell is 404 like an unknown one.
import { html, type Html } from '../../../lib/html.ts';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import type { PaymentDetails } from '../../billing/offers.ts';
import { paymentWords } from '../../billing/checkout-pages.ts';
import { dollars, micros } from '../../billing/money.ts';
import { cellOperations } from '../../cells/operations.ts';
import { plural } from '../../../lib/plural.ts';
import type { CellView } from '../../cells/service.ts';
import { payFormOnSend } from '../account/billing-routes.ts';
import { capitalized, choiceBox, fieldset } from '../account/shared.ts';
import { consoleBinder, FormRefusal, type Ask, type Refusal } from '../binder.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import { csrfField, errorNotice, field, hidden, layout, postForm } from '../layout.ts';
import type { ConsoleModule } from '../module.ts';
import { confirmationPage } from '../pages.ts';
import { CELL_QUIET_HOURS, cellPath, cellsPath } from './pages.ts';
import { postQuietHours, quietHoursPage } from '../quiet-hours.ts';
import { CELLS_SECTION } from './routes.ts';

const NAME_MAX = 100;

type Tier = { name: string; priceMicros: number; includedCells: number };
/** What the form shows: what was typed (display_name, tier), an error per field, a notice for the whole form. */
type CellForm = Pick<Refusal, 'values' | 'errors' | 'notice'>;
/** A 402 of the create: the payment it asks for, and its text. */
type PaymentRefusal = { detail: string; payment: PaymentDetails };

const nameField = ({ values, errors }: CellForm, hint: string) =>
  field({
    id: 'display-name',
    name: 'display_name',
    label: 'Cell name',
    type: 'text',
    value: values.display_name,
    hint,
    error: errors.display_name,
    attributes: html`maxlength="${NAME_MAX}" autocomplete="off"`,
  });

/** The form value of the billing pay form that pays `payment` (billing-routes.ts' intentOf). */
const payIntent = (payment: PaymentDetails) =>
  payment.intent === 'setup' ? `setup:${payment.tier ?? 'starter'}` : payment.intent;

/** A 402 of the create: what it asks to pay, after the create-cell form with what was typed (the checkout's way back). */
function paymentSection(context: SignedInContext, refusal: PaymentRefusal, form: CellForm): Html {
  const { payment } = refusal;
  const words = paymentWords({
    intent: payment.intent,
    tier: payment.tier ?? null,
    cell_id: payment.cell_id ?? null,
    amount_micros: Math.round(Number(payment.amount_usd) * 1_000_000),
  });
  const amount = dollars(payment.amount_usd);
  const typed = new URLSearchParams(Object.entries(form.values).filter(([, value]) => value));
  const card = payment.rails.includes('card_processor')
    ? html`<form method="post" action="${context.path}/billing/pay">
${csrfField(context)}
${hidden('intent', payIntent(payment))}
${payment.intent === 'top_up' && hidden('amount_usd', payment.amount_usd)}${payment.intent === 'setup' && field({ id: 'starting-balance', name: 'amount_usd', label: 'Starting balance for messages, in US dollars (optional)', type: 'text', optional: true, attributes: html`inputmode="decimal" autocomplete="off" maxlength="16" class="amount-input"` })}
${hidden('rail', 'card_processor')}
${hidden('return', `${cellsPath(context)}/new?${typed.toString()}`)}
<button type="submit" class="primary">Pay ${amount} by card</button>
</form>`
    : html`<p>Card payments are not offered on this deployment.</p>`;
  return html`<section id="payment-needed" class="notice info" aria-labelledby="payment-heading">
<h2 id="payment-heading">Payment needed: ${words.name}, ${amount}</h2>
<p>${refusal.detail} ${words.sentence}</p>
${card}
<p class="small after">Other ways to pay (x402, MPP) are under <a href="${context.path}/billing">Billing</a>. Once it is paid, create the cell again: the card page leads back here with this form filled in.</p>
</section>`;
}

export function newCellPage(
  context: SignedInContext,
  view: {
    form: CellForm;
    tiers: Tier[] | null;
    welcome?: boolean;
    refusal?: PaymentRefusal;
    noPhoneFree?: boolean;
  },
): Html {
  const { form } = view;
  const failed = Object.keys(form.errors).length > 0 || Boolean(form.notice || view.refusal);
  const chosen = form.values.tier || 'starter';
  const tiers =
    view.tiers &&
    fieldset({ id: 'tier', legend: 'Plan', error: form.errors.tier }, [
      html`<span class="hint">Your first cell starts a plan; its first month is paid when the cell is created.</span>\n`,
      view.tiers.map(({ name, priceMicros, includedCells }) =>
        choiceBox({
          type: 'radio',
          id: `tier-${name}`,
          name: 'tier',
          value: name,
          checked: chosen === name,
          label: `${capitalized(name)}: ${dollars(micros(priceMicros))} a month, ${plural(includedCells, 'cell')} included`,
        }),
      ),
    ]);
  return layout(
    { ...context, current: 'cells' },
    `${failed ? 'Error: ' : ''}New cell`,
    html`<div class="card">
<h1>Create a cell</h1>
${view.welcome && html`<p class="notice ok" role="status">Your email is confirmed and you are signed in to ${context.signedIn.organizationName}. Create your first cell: a phone line your agents text from.</p>`}
${view.noPhoneFree && !view.refusal && html`<p class="notice info" id="no-phone-free">No phone is free now: a cell you create (and pay for) waits in provisioning, with no number and no sends, until the operator adds a phone.</p>`}
${view.refusal && paymentSection(context, view.refusal, form)}
${errorNotice(form.notice)}
${postForm(context, { action: `${cellsPath(context)}/new`, button: 'Create cell', cancel: cellsPath(context) }, [nameField(form, `What the line is for, like Support line (up to ${NAME_MAX} characters).`), '\n', tiers])}
</div>`,
  );
}

export function renameCellPage(context: SignedInContext, cell: CellView, form?: CellForm): Html {
  return layout(
    { ...context, current: 'cells' },
    `${form ? 'Error: ' : ''}Rename ${cell.display_name}`,
    html`<div class="card">
<h1>Rename ${cell.display_name}</h1>
${errorNotice(form?.notice)}
${postForm(context, { action: `${cellPath(context, cell.id)}/rename`, button: 'Save name', cancel: cellPath(context, cell.id) }, nameField(form ?? { values: { display_name: cell.display_name }, errors: {} }, `Up to ${NAME_MAX} characters. The number does not change.`))}
</div>`,
  );
}

export function releaseCellPage(context: SignedInContext, cell: CellView): Html {
  return confirmationPage(
    { ...context, current: 'cells' },
    {
      title: `Release ${cell.display_name}?`,
      explain: html`Releasing the cell gives up its number${cell.phone_number ? html` <span class="mono">${cell.phone_number}</span>` : ''}: it stops sending and receiving at once, its phone goes to another line, and the cell no longer appears in the console or the API. This cannot be undone.`,
      action: `${cellPath(context, cell.id)}/release`,
      confirm: `Release ${cell.display_name}`,
      keep: { href: cellPath(context, cell.id), text: 'Keep the cell' },
    },
  );
}

/** The form's name, trimmed; refused (with `errors` of other fields) unless it has 1-100 characters with something visible. */
function nameOf(body: Record<string, string>, errors: Record<string, string> = {}): string {
  const name = (body.display_name ?? '').trim();
  if (name === '') errors.display_name = 'Enter a name for the cell.';
  else if (name.length > NAME_MAX) errors.display_name = `The name is too long (at most ${NAME_MAX} characters).`;
  if (Object.keys(errors).length > 0) throw new FormRefusal(errors);
  return name;
}

export function registerCellManagement(scope: App, module: ConsoleModule): void {
  const { cells, billing } = module.dashboard;
  const { createCell, updateCell, releaseCell } = cellOperations(cells);
  const route = { onSend: payFormOnSend(module) };
  const bind = consoleBinder(scope, module, CELLS_SECTION);
  const cellOf = ({ session, params }: Ask) => cells.get(session.organizationId, params.cell_id);

  /** The plans to choose from: only before the first plan, with billing on. */
  async function tiersOf({ session }: Ask): Promise<Tier[] | null> {
    if (!billing.billing.enabled) return null;
    const status = await billing.billing.status(session.organizationId);
    if (status.state !== 'inactive') return null;
    return Object.entries(billing.billing.prices.tiers).map(([name, tier]) => ({ name, ...tier }));
  }

  bind.view(
    `${CONSOLE_PATH}/cells/new`,
    async (ask) => {
      const tiers = await tiersOf(ask);
      const { tier = '', display_name: name = '' } = ask.query;
      // Filled in when a checkout leads back here (what was typed before the payment).
      const values = { display_name: name.slice(0, NAME_MAX), tier: tiers?.some((t) => t.name === tier) ? tier : '' };
      return newCellPage(ask.context, {
        form: { values, errors: {} },
        tiers,
        welcome: ask.query.welcome === '1',
        noPhoneFree: !(await module.operator.devices.anyFree()),
      });
    },
    { route },
  );

  bind.post(`${CONSOLE_PATH}/cells/new`, {
    route,
    run: async (ask) => {
      const tiers = await tiersOf(ask);
      // The plan is asked for only before the first one; otherwise a posted plan means nothing.
      const tier = (tiers && ask.body.tier) || undefined;
      const unknownTier = tier && !tiers?.some((t) => t.name === tier);
      const name = nameOf(ask.body, unknownTier ? { tier: 'Choose one of the plans.' } : {});
      try {
        const cell = await ask.call(createCell, { display_name: name, ...(tier ? { tier } : {}) });
        return cellPath(ask.context, cell.id);
      } catch (failure) {
        const payment =
          failure instanceof ApiError && failure.code === 'payment_required' && failure.extensions?.payment;
        if (!payment) throw failure;
        const form = { values: { display_name: name, tier: tier ?? '' }, errors: {} };
        const refusal = { detail: failure.message, payment: payment as PaymentDetails };
        return ask.send(402, newCellPage(ask.context, { form, tiers, refusal }));
      }
    },
    page: async (ask, refusal) => newCellPage(ask.context, { form: refusal, tiers: await tiersOf(ask) }),
  });

  bind.view(`${CONSOLE_PATH}/cells/:cell_id/rename`, async (ask) => renameCellPage(ask.context, await cellOf(ask)));

  bind.form(`${CONSOLE_PATH}/cells/:cell_id/rename`, updateCell, {
    input: ({ params, body }) => ({ id: params.cell_id, display_name: nameOf(body) }),
    page: async (ask, refusal) => renameCellPage(ask.context, await cellOf(ask), refusal),
    done: ({ context }, renamed) => cellPath(context, renamed.id),
  });

  bind.post(`${CONSOLE_PATH}/cells/:cell_id/quiet-hours`, {
    run: async (ask) => {
      const { id, display_name: title, quiet_hours: current } = await cellOf(ask);
      const here = cellPath(ask.context, id);
      const back = { href: here, text: `Back to ${title}` };
      const page = { title, back, action: `${here}/quiet-hours`, current, explain: CELL_QUIET_HOURS };
      return postQuietHours(
        ask,
        (quietHours) => ask.call(updateCell, { id, quiet_hours: quietHours }),
        async (form) => quietHoursPage(ask.context, { ...page, form }),
        here,
      );
    },
  });

  bind.view(`${CONSOLE_PATH}/cells/:cell_id/release`, async (ask) => releaseCellPage(ask.context, await cellOf(ask)));

  bind.post(`${CONSOLE_PATH}/cells/:cell_id/release`, {
    run: async (ask) => {
      await ask.call(releaseCell, { id: (await cellOf(ask)).id });
      return `${CONSOLE_PATH}/cells?notice=released`;
    },
  });
}
