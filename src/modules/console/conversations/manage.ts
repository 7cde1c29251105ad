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
import { capitalized, csrfField } from '../account/shared.ts';
import { consoleBinder, FormRefusal, type Ask } from '../binder.ts';
import type { SignedInContext } from '../guard.ts';
import { CONSOLE_PATH } from '../http.ts';
import { field, hidden, layout } from '../layout.ts';
import type { ConsoleModule } from '../module.ts';
import { confirmationPage } from '../pages.ts';
import { CELL_QUIET_HOURS, cellPath, cellsPath, postForm } from './pages.ts';
import { postQuietHours, quietHoursPage } from '../quiet-hours.ts';
import { CELLS_SECTION } from './routes.ts';

export const NAME_MAX = 100;

type Tier = { name: string; priceMicros: number; includedCells: number };

export interface CellForm {
  displayName?: string;
  tier?: string;
  error?: string;
  tierError?: string;
}

/** A 402 of the create: the payment it asks for, and its text. */
export interface CreateRefusal {
  detail: string;
  payment: PaymentDetails;
}

const nameField = (form: CellForm, hint: string) =>
  field({
    id: 'display-name',
    name: 'display_name',
    label: 'Cell name',
    type: 'text',
    value: form.displayName,
    hint,
    error: form.error,
    attributes: html`maxlength="${NAME_MAX}" autocomplete="off"`,
  });

/** The form value of the billing pay form that pays `payment` (billing-routes.ts' intentOf). */
const payIntent = (payment: PaymentDetails) =>
  payment.intent === 'setup' ? `setup:${payment.tier ?? 'starter'}` : payment.intent;

/** The create-cell form with what was typed, for the checkout's way back (GET cells/new fills it in). */
const newCellReturn = (context: SignedInContext, form: CellForm) => {
  const typed = new URLSearchParams();
  if (form.displayName) typed.set('display_name', form.displayName);
  if (form.tier) typed.set('tier', form.tier);
  return `${cellsPath(context)}/new?${typed.toString()}`;
};

const STARTING_BALANCE = html`<label for="starting-balance">Starting balance for messages, in US dollars (optional)</label>
<input id="starting-balance" name="amount_usd" type="text" inputmode="decimal" autocomplete="off" maxlength="16" class="amount-input">`;

function paymentSection(context: SignedInContext, refusal: CreateRefusal, form: CellForm): Html {
  const { payment } = refusal;
  const words = paymentWords({
    intent: payment.intent,
    tier: payment.tier ?? null,
    cell_id: payment.cell_id ?? null,
    amount_micros: Math.round(Number(payment.amount_usd) * 1_000_000),
  });
  const amount = dollars(payment.amount_usd);
  const card = payment.rails.includes('card_processor')
    ? html`<form method="post" action="${context.path}/billing/pay">
${csrfField(context)}
${hidden('intent', payIntent(payment))}
${payment.intent === 'top_up' && hidden('amount_usd', payment.amount_usd)}${payment.intent === 'setup' && STARTING_BALANCE}
${hidden('rail', 'card_processor')}
${hidden('return', newCellReturn(context, form))}
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
  view: { form: CellForm; tiers: Tier[] | null; welcome: boolean; refusal?: CreateRefusal; noPhoneFree?: boolean },
): Html {
  const { form } = view;
  const failed = Boolean(form.error || form.tierError || view.refusal);
  const tiers =
    view.tiers &&
    html`<fieldset class="field"${form.tierError && html` aria-describedby="tier-error"`}>
<legend>Plan</legend>
<span class="hint">Your first cell starts a plan; its first month is paid when the cell is created.</span>
${view.tiers.map(({ name, priceMicros, includedCells }) => html`<div class="check"><input type="radio" id="tier-${name}" name="tier" value="${name}"${(form.tier ?? 'starter') === name ? ' checked' : ''}><label for="tier-${name}">${capitalized(name)}: ${dollars(micros(priceMicros))} a month, ${plural(includedCells, 'cell')} included</label></div>\n`)}
${form.tierError && html`<p class="field-error" id="tier-error">${form.tierError}</p>`}
</fieldset>`;
  return layout(
    { ...context, current: 'cells' },
    `${failed ? 'Error: ' : ''}New cell`,
    html`<div class="card">
<h1>Create a cell</h1>
${view.welcome && html`<p class="notice ok" role="status">Your email is confirmed and you are signed in to ${context.signedIn.organizationName}. Create your first cell: a phone line your agents text from.</p>`}
${view.noPhoneFree && !view.refusal && html`<p class="notice info" id="no-phone-free">No phone is free now: a cell you create (and pay for) waits in provisioning, with no number and no sends, until the operator adds a phone.</p>`}
${view.refusal && paymentSection(context, view.refusal, form)}
${postForm(context, { action: `${cellsPath(context)}/new`, button: 'Create cell', cancel: cellsPath(context) }, [nameField(form, `What the line is for, like Support line (up to ${NAME_MAX} characters).`), '\n', tiers])}
</div>`,
  );
}

export function renameCellPage(context: SignedInContext, cell: CellView, form: CellForm): Html {
  return layout(
    { ...context, current: 'cells' },
    `${form.error ? 'Error: ' : ''}Rename ${cell.display_name}`,
    html`<div class="card">
<h1>Rename ${cell.display_name}</h1>
${postForm(context, { action: `${cellPath(context, cell.id)}/rename`, button: 'Save name', cancel: cellPath(context, cell.id) }, nameField({ displayName: cell.display_name, ...form }, `Up to ${NAME_MAX} characters. The number does not change.`))}
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

/** The name of the form: trimmed, 1-100 characters with something visible; or why not. */
function nameOf(body: Record<string, string>): { name: string; error?: string } {
  const name = (body.display_name ?? '').trim();
  if (name === '') return { name, error: 'Enter a name for the cell.' };
  if (name.length > NAME_MAX) return { name, error: `The name is too long (at most ${NAME_MAX} characters).` };
  return { name };
}

export function registerCellManagement(scope: App, module: ConsoleModule): void {
  const { cells, billing } = module.dashboard;
  const { createCell, updateCell, releaseCell } = cellOperations(cells);
  const onSend = payFormOnSend(module);
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
      return newCellPage(ask.context, {
        // Filled in when a checkout leads back here (what was typed before the payment).
        form: {
          displayName: name.slice(0, NAME_MAX) || undefined,
          tier: tiers?.some((t) => t.name === tier) ? tier : undefined,
        },
        tiers,
        welcome: ask.query.welcome === '1',
        noPhoneFree: !(await module.operator.devices.anyFree()),
      });
    },
    { route: { onSend } },
  );

  bind.post(`${CONSOLE_PATH}/cells/new`, {
    route: { onSend },
    run: async (ask) => {
      const { context, body } = ask;
      const tiers = await tiersOf(ask);
      const { name, error } = nameOf(body);
      // The plan is asked for only before the first one; otherwise a posted plan means nothing.
      const tier = tiers ? body.tier || undefined : undefined;
      const form: CellForm = { displayName: name, tier, error };
      if (tiers && tier !== undefined && !tiers.some((t) => t.name === tier))
        form.tierError = 'Choose one of the plans.';
      if (form.error || form.tierError) return ask.send(400, newCellPage(context, { form, tiers, welcome: false }));
      try {
        const cell = await ask.call(createCell, { display_name: name, ...(tier ? { tier } : {}) });
        return cellPath(context, cell.id);
      } catch (failure) {
        if (!(failure instanceof ApiError)) throw failure;
        const payment = failure.extensions?.payment as PaymentDetails | undefined;
        if (failure.code === 'payment_required' && payment)
          return ask.send(
            402,
            newCellPage(context, { form, tiers, welcome: false, refusal: { detail: failure.message, payment } }),
          );
        if (failure.code === 'invalid_request')
          return ask.send(
            400,
            newCellPage(context, { form: { ...form, error: failure.message }, tiers, welcome: false }),
          );
        throw failure;
      }
    },
  });

  bind.view(`${CONSOLE_PATH}/cells/:cell_id/rename`, async (ask) => renameCellPage(ask.context, await cellOf(ask), {}));

  bind.form(`${CONSOLE_PATH}/cells/:cell_id/rename`, updateCell, {
    input: ({ params, body }) => {
      const { name, error } = nameOf(body);
      if (error) throw new FormRefusal({ display_name: error });
      return { id: params.cell_id, display_name: name };
    },
    page: async (ask, refusal) =>
      renameCellPage(ask.context, await cellOf(ask), {
        displayName: (ask.body.display_name ?? '').trim(),
        error: refusal.errors.display_name ?? refusal.notice,
      }),
    done: ({ context }, renamed) => cellPath(context, renamed.id),
  });

  bind.post(`${CONSOLE_PATH}/cells/:cell_id/quiet-hours`, {
    run: async (ask) => {
      const { context } = ask;
      const cell = await cellOf(ask);
      const action = `${cellPath(context, cell.id)}/quiet-hours`;
      return postQuietHours(
        ask,
        (quietHours) => ask.call(updateCell, { id: cell.id, quiet_hours: quietHours }),
        async (form) =>
          quietHoursPage(context, {
            title: cell.display_name,
            back: { href: cellPath(context, cell.id), text: `Back to ${cell.display_name}` },
            action,
            current: cell.quiet_hours,
            form,
            explain: CELL_QUIET_HOURS,
          }),
        cellPath(context, cell.id),
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
