// The operator console's inventory: add a phone (its key shown once on its page), change a phone's
// label, send rate and daily limit, and remove a phone that carries no cell. Each is the admin
// API's operation (create_device, update_device, delete_device) through invoke, so the rules and
// the audit log are the API's:
//   GET  /console/operator/devices/new                   the form; POST /console/operator/devices adds
//   POST /console/operator/devices/:device_id/settings   label, send rate, daily limit
//   POST /console/operator/devices/:device_id/sims       an SMSGate phone's SIM numbers (sim_1, sim_2)
//   GET  /console/operator/devices/:device_id/remove     confirm; POST removes, 303 to the fleet
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { capitalized } from '../account/shared.ts';
import { FormRefusal, type Refusal } from '../binder.ts';
import { devicePath, OPERATOR_PATH, type OperatorAsk } from './http.ts';
import { addPhonePage, removePhonePage, SETTINGS, simField } from './inventory-pages.ts';
import { operatorBinder, type OperatorConsole } from './module.ts';
import { flashDeviceKey, PHONE_SECTION, phoneId, phonePage } from './routes.ts';

const WHOLE_NUMBER = /^[0-9]{1,9}$/;
/** What each setting takes, in the form's words (for a value the form or the operation refuses). */
const WANTED: Record<string, string> = {
  send_rate_per_minute: 'Enter a whole number from 1 to 30.',
  daily_send_limit: 'Enter a whole number from 1 to 10,000.',
  label: 'The label is at most 100 characters.',
};

/**
 * The posted settings as the operation's input: an empty field is left out (the default on add,
 * unchanged on save; an empty label on save clears it), a number that is not a whole number is the
 * form's error. `clearLabel`: an empty label means "no label" (save) rather than "none given" (add).
 */
function settingsInput(body: Record<string, string>, clearLabel: boolean, errors: Record<string, string> = {}) {
  const input: Record<string, unknown> = {};
  for (const name of SETTINGS) {
    const value = (body[name] ?? '').trim();
    if (name === 'label') {
      if (value !== '') input.label = value;
      else if (clearLabel) input.label = null;
    } else if (value !== '') {
      if (WHOLE_NUMBER.test(value)) input[name] = Number(value);
      else errors[name] = WANTED[name];
    }
  }
  if (Object.keys(errors).length > 0) throw new FormRefusal(errors);
  return input;
}

/** A refusal with a setting's error in the form's words (the operation's says "must be <= 30"). */
const worded = (refusal: Refusal): Refusal => ({
  ...refusal,
  errors: Object.fromEntries(Object.entries(refusal.errors).map(([name, error]) => [name, WANTED[name] ?? error])),
});

export function registerInventoryPages(scope: App, operator: OperatorConsole): void {
  const { http } = operator;
  const devices = operator.operations.devices;
  const bind = operatorBinder(scope, operator, { ...PHONE_SECTION, labels: { phone_number: 'The phone number' } });

  /** The phone of the route as the admin surface shows it; an id of the wrong form is no phone. */
  const phone = (ask: OperatorAsk) => ask.call(devices.getDevice, { device_id: phoneId(ask) });

  bind.view(`${OPERATOR_PATH}/devices/new`, async ({ session }) => addPhonePage(session));

  bind.post(`${OPERATOR_PATH}/devices`, {
    run: async (ask) => {
      const phoneNumber = (ask.body.phone_number ?? '').trim();
      const input = settingsInput(
        ask.body,
        false,
        phoneNumber === '' ? { phone_number: 'Enter the phone number, like +14155550123.' } : {},
      );
      const added = await ask.call(devices.createDevice, { phone_number: phoneNumber, ...input });
      return flashDeviceKey(http, ask, { deviceId: added.id, secret: added.device_key, added: true });
    },
    page: async ({ session }, refusal) => addPhonePage(session, worded(refusal)),
    codeFields: { conflict: 'phone_number' },
  });

  bind.post(`${OPERATOR_PATH}/devices/:device_id/settings`, {
    run: async (ask) => {
      const id = phoneId(ask);
      await ask.call(devices.updateDevice, { device_id: id, ...settingsInput(ask.body, true) });
      return `${devicePath(id)}?notice=settings`;
    },
    page: (ask, refusal) => phonePage(operator, ask, { sent: { ...worded(refusal), form: 'settings' } }),
  });

  bind.post(`${OPERATOR_PATH}/devices/:device_id/sims`, {
    run: async (ask) => {
      const device = await phone(ask);
      // The lines without a cell, as the page showed them; an empty field leaves its line as it is.
      const sims = device.sims
        .filter((line) => line.cell_id === null && (ask.body[simField(line.sim_number)] ?? '').trim() !== '')
        .map((line) => ({ sim_number: line.sim_number, phone_number: ask.body[simField(line.sim_number)].trim() }));
      if (sims.length === 0) throw new ApiError('invalid_request', 'Enter the number of at least one SIM.');
      try {
        await ask.call(devices.updateDevice, { device_id: device.id, sims });
      } catch (error) {
        // The operation names the entry (sims.<i>.…): its error goes on that SIM's field.
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        const errors: Record<string, string> = {};
        for (const e of error.errors ?? []) {
          const entry = sims[Number(/^sims\.(\d+)\./.exec(e.field)?.[1])];
          if (entry) errors[simField(entry.sim_number)] ??= capitalized(e.message);
        }
        // Else the refusal is the form's notice (without its errors, which name no field of the form).
        throw Object.keys(errors).length > 0
          ? new FormRefusal(errors, error.status)
          : new ApiError(error.code, error.message);
      }
      return `${devicePath(device.id)}?notice=sims`;
    },
    page: (ask, refusal) => phonePage(operator, ask, { sent: { ...refusal, form: 'sims' } }),
  });

  bind.view(`${OPERATOR_PATH}/devices/:device_id/remove`, async (ask) =>
    removePhonePage(ask.session, await phone(ask)),
  );

  bind.post(`${OPERATOR_PATH}/devices/:device_id/remove`, {
    run: async (ask) => {
      await ask.call(devices.deleteDevice, { device_id: phoneId(ask) });
      return `${OPERATOR_PATH}/fleet?notice=removed`;
    },
    // Refused (it carries a cell): the question again, with why.
    page: async (ask, refusal) => removePhonePage(ask.session, await phone(ask), refusal.notice),
  });
}
