// The operator console's inventory: add a phone (its key shown once on its page), change a phone's
// label, send rate and daily limit, and remove a phone that carries no cell. Each is the admin
// API's operation (create_device, update_device, delete_device) through invoke, so the rules and
// the audit log are the API's:
//   GET  /console/operator/devices/new                   the form; POST /console/operator/devices adds
//   POST /console/operator/devices/:device_id/settings   label, send rate, daily limit
//   POST /console/operator/devices/:device_id/sims       an SMSGate phone's SIM numbers (sim_1, sim_2)
//   GET  /console/operator/devices/:device_id/remove     confirm; POST removes, 303 to the fleet
import type { FastifyReply } from 'fastify';
import type { App } from '../../../http/types.ts';
import { ApiError } from '../../../lib/errors.ts';
import { param, text } from '../account/shared.ts';
import { sayFieldError } from '../field-errors.ts';
import { registerFormParser, sendPage } from '../http.ts';
import { devicePath, OPERATOR_PATH, redirect } from './http.ts';
import { addPhonePage, removePhonePage, SETTINGS, simField, type PhoneForm } from './inventory-pages.ts';
import { actAs, type OperatorConsole } from './module.ts';
import { DEVICE_ID, deviceNotFound, flashDeviceKey, HIDDEN, PUBLIC, renderDevice } from './routes.ts';
import type { OperatorSession } from './service.ts';

const WHOLE_NUMBER = /^[0-9]{1,9}$/;
/** What each setting takes, in the form's words (for a value the form or the operation refuses). */
const WANTED: Record<string, string> = {
  send_rate_per_minute: 'Enter a whole number from 1 to 30.',
  daily_send_limit: 'Enter a whole number from 1 to 10,000.',
  label: 'The label is at most 100 characters.',
};
/** The form's names of the operation's fields, for its other refusals ("The phone number must …"). */
const LABELS = { phone_number: 'The phone number' };

/**
 * The posted settings as the operation's input: an empty field is left out (the default on add,
 * unchanged on save; an empty label on save clears it), a number that is not a whole number is the
 * form's error. `clearLabel`: an empty label means "no label" (save) rather than "none given" (add).
 */
function settingsInput(
  body: unknown,
  clearLabel: boolean,
): { input: Record<string, unknown>; errors: Record<string, string> } {
  const input: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const name of SETTINGS) {
    const value = text(body, name).trim();
    if (name === 'label') {
      if (value !== '') input.label = value;
      else if (clearLabel) input.label = null;
    } else if (value !== '') {
      if (WHOLE_NUMBER.test(value)) input[name] = Number(value);
      else errors[name] = WANTED[name];
    }
  }
  return { input, errors };
}

/** An operation's refusal as the form's errors (each on its field, a conflict on the number); null otherwise. */
function refusalOf(error: unknown, values: Record<string, string>): { form: PhoneForm; status: number } | null {
  if (!(error instanceof ApiError) || error.code === 'not_found' || error.status >= 500) return null;
  const form: PhoneForm = { values, errors: {} };
  for (const e of error.errors ?? [])
    form.errors[e.field] ??= WANTED[e.field] ?? sayFieldError(e.field, e.message, LABELS);
  if (Object.keys(form.errors).length === 0) {
    if (error.code === 'conflict' && 'phone_number' in values) form.errors.phone_number = error.message;
    else form.notice = error.message;
  }
  return { form, status: error.status };
}

const valuesOf = (body: unknown, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, text(body, name)]));

export function registerInventoryPages(app: App, operator: OperatorConsole): void {
  const { guard, http } = operator;
  const devices = operator.operations.devices;
  const route = { config: PUBLIC, schema: HIDDEN };

  /** The phone page with the settings form's errors. */
  async function settingsAgain(
    reply: FastifyReply,
    session: OperatorSession,
    id: string,
    form: PhoneForm,
    status: number,
  ) {
    const page = await renderDevice(operator, session, id, { settingsForm: form });
    return page === null ? deviceNotFound(reply, session) : sendPage(reply, status, page);
  }

  /** The phone page with the SIM numbers form's errors. */
  async function simsAgain(reply: FastifyReply, session: OperatorSession, id: string, form: PhoneForm, status: number) {
    const page = await renderDevice(operator, session, id, { simsForm: form });
    return page === null ? deviceNotFound(reply, session) : sendPage(reply, status, page);
  }

  /** The phone as the admin surface shows it, or null when it is not in the inventory. */
  async function phone(session: OperatorSession, id: string) {
    if (!DEVICE_ID.test(id)) return null;
    try {
      return await actAs<{
        id: string;
        phone_number: string | null;
        cell_id: string | null;
        sims: { sim_number: number; cell_id: string | null }[];
      }>(operator, session, devices.getDevice, {
        device_id: id,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }
  }

  app.register(async (scope) => {
    registerFormParser(scope);

    scope.get(`${OPERATOR_PATH}/devices/new`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      return sendPage(reply, 200, addPhonePage(session));
    });

    scope.post(`${OPERATOR_PATH}/devices`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const values = valuesOf(request.body, ['phone_number', ...SETTINGS]);
      const { input, errors } = settingsInput(request.body, false);
      const phoneNumber = values.phone_number.trim();
      if (phoneNumber === '') errors.phone_number = 'Enter the phone number, like +14155550123.';
      if (Object.keys(errors).length > 0) return sendPage(reply, 400, addPhonePage(session, { values, errors }));
      let added: { id: string; device_key: string };
      try {
        added = await actAs(operator, session, devices.createDevice, { phone_number: phoneNumber, ...input });
      } catch (error) {
        const refused = refusalOf(error, values);
        if (!refused) throw error;
        return sendPage(reply, refused.status, addPhonePage(session, refused.form));
      }
      flashDeviceKey(reply, http, session, added.id, added.device_key, 'added');
      return redirect(reply, devicePath(added.id));
    });

    scope.post(`${OPERATOR_PATH}/devices/:device_id/settings`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const id = param(request.params, 'device_id');
      if (!DEVICE_ID.test(id)) return deviceNotFound(reply, session);
      const values = valuesOf(request.body, SETTINGS);
      const { input, errors } = settingsInput(request.body, true);
      if (Object.keys(errors).length > 0) return settingsAgain(reply, session, id, { values, errors }, 400);
      try {
        await actAs(operator, session, devices.updateDevice, { device_id: id, ...input });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return deviceNotFound(reply, session);
        const refused = refusalOf(error, values);
        if (!refused) throw error;
        return settingsAgain(reply, session, id, refused.form, refused.status);
      }
      return redirect(reply, `${devicePath(id)}?notice=settings`);
    });

    scope.post(`${OPERATOR_PATH}/devices/:device_id/sims`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const device = await phone(session, param(request.params, 'device_id'));
      if (!device) return deviceNotFound(reply, session);
      // The fields of the lines without a cell, as the page showed them; an empty one is left as it is.
      const names = device.sims.filter((line) => line.cell_id === null).map((line) => simField(line.sim_number));
      const values = valuesOf(request.body, names);
      const sims = device.sims
        .filter((line) => line.cell_id === null && values[simField(line.sim_number)].trim() !== '')
        .map((line) => ({ sim_number: line.sim_number, phone_number: values[simField(line.sim_number)].trim() }));
      const again = (form: PhoneForm, status: number) => simsAgain(reply, session, device.id, form, status);
      if (sims.length === 0) return again({ values, errors: {}, notice: 'Enter the number of at least one SIM.' }, 400);
      try {
        await actAs(operator, session, devices.updateDevice, { device_id: device.id, sims });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return deviceNotFound(reply, session);
        if (!(error instanceof ApiError) || error.status >= 500) throw error;
        // The operation names the entry (sims.<i>.…): its error goes on that SIM's field.
        const errors: Record<string, string> = {};
        for (const e of error.errors ?? []) {
          const entry = sims[Number(/^sims\.(\d+)\./.exec(e.field)?.[1])];
          if (entry) errors[simField(entry.sim_number)] ??= e.message.charAt(0).toUpperCase() + e.message.slice(1);
        }
        return again(
          Object.keys(errors).length > 0 ? { values, errors } : { values, errors, notice: error.message },
          error.status,
        );
      }
      return redirect(reply, `${devicePath(device.id)}?notice=sims`);
    });

    scope.get(`${OPERATOR_PATH}/devices/:device_id/remove`, route, async (request, reply) => {
      const session = await guard.page(request, reply);
      if (!session) return reply;
      const device = await phone(session, param(request.params, 'device_id'));
      return device ? sendPage(reply, 200, removePhonePage(session, device)) : deviceNotFound(reply, session);
    });

    scope.post(`${OPERATOR_PATH}/devices/:device_id/remove`, route, async (request, reply) => {
      const session = await guard.posted(request, reply, text(request.body, 'csrf_token'));
      if (!session) return reply;
      const device = await phone(session, param(request.params, 'device_id'));
      if (!device) return deviceNotFound(reply, session);
      try {
        await actAs(operator, session, devices.deleteDevice, { device_id: device.id });
      } catch (error) {
        if (error instanceof ApiError && error.code === 'not_found') return deviceNotFound(reply, session);
        if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
        return sendPage(reply, 409, removePhonePage(session, device, error.message));
      }
      return redirect(reply, `${OPERATOR_PATH}/fleet?notice=removed`);
    });
  });
}
