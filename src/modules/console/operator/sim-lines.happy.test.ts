// The operator console's SIM lines (contract §13): an SMSGate phone signed in with its SIM numbers
// masked shows its lines without numbers; the operator types each number on the phone's page, the
// lines then carry cells; a refused number stays on its field with the operation's reason.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, useApp } from '../../../../test/harness.ts';
import {
  getOperatorPage,
  postOperatorForm,
  signInOperator,
  type OperatorSignIn,
} from '../../../../test/support/console-operator.ts';
import { mobilePhone, nextNumber, twoSims, type MobilePhone } from '../../../../test/support/mobile.ts';
import { page } from '../../../../test/support/page.ts';

describe("operator console: an SMSGate phone's SIM lines", () => {
  const t = useApp();
  let operator: OperatorSignIn;
  let phone: MobilePhone;

  before(async () => {
    operator = await signInOperator(t);
    phone = await mobilePhone(t, twoSims('********0101', '********0102'));
  });

  const lines = async () =>
    (await t.app.inject({ url: `/v1/admin/devices/${phone.id}`, headers: admin }))
      .json()
      .sims.map((s: { phone_number: string | null }) => s.phone_number);

  it('shows the lines without numbers, with the digits the app reported, and a field for each', async () => {
    const response = await getOperatorPage(t, `/console/operator/devices/${phone.id}`, operator);
    assert.equal(response.statusCode, 200, response.body);
    const sims = page(response).section('SIM lines');
    sims.getAllByText(/\*{8}0102/);
    sims.getAllByText(/None until its number is set/);
    assert.deepEqual([sims.valueOf('SIM 1 number'), sims.valueOf('SIM 2 number')], ['', '']);
    // The phone has no number yet: its page is named by its id.
    page(response).getByRole('heading', { level: 1, name: new RegExp(`^Phone ${phone.id}(\\s|$)`) });
  });

  it('refuses a bad number on its field and keeps what was typed; nothing is set', async () => {
    const refused = await postOperatorForm(t, `/console/operator/devices/${phone.id}/sims`, operator, {
      sim_1: '0815 1234',
      sim_2: '',
    });
    assert.equal(refused.statusCode, 400, refused.body);
    const sim1 = page(refused).getByRole<HTMLInputElement>('textbox', {
      name: 'SIM 1 number',
      description: /international E\.164 form/,
    });
    assert.deepEqual([sim1.value, sim1.getAttribute('aria-invalid')], ['0815 1234', 'true']);
    const empty = await postOperatorForm(t, `/console/operator/devices/${phone.id}/sims`, operator, {
      sim_1: ' ',
      sim_2: '',
    });
    assert.equal(empty.statusCode, 400);
    page(empty).getAllByText(/Enter the number of at least one SIM/);
    assert.deepEqual(await lines(), [null, null]);
  });

  it('sets the numbers typed, and a number already in the inventory is 409 on its field', async () => {
    const [first, second] = [nextNumber(), nextNumber()];
    const saved = await postOperatorForm(t, `/console/operator/devices/${phone.id}/sims`, operator, {
      sim_1: first,
      sim_2: '',
    });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/operator/devices/${phone.id}?notice=sims`);
    assert.deepEqual(await lines(), [first, null]);
    const taken = await postOperatorForm(t, `/console/operator/devices/${phone.id}/sims`, operator, {
      sim_1: first,
      sim_2: first,
    });
    assert.equal(taken.statusCode, 409, taken.body);
    page(taken).getByRole('textbox', { name: 'SIM 2 number', description: /already carried/ });
    const both = await postOperatorForm(t, `/console/operator/devices/${phone.id}/sims`, operator, {
      sim_1: first,
      sim_2: second,
    });
    assert.equal(both.statusCode, 303, both.body);
    assert.deepEqual(await lines(), [first, second]);
  });
});
