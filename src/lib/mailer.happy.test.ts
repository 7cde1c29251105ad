// End to end over real sockets: a real SMTP sink, the real nodemailer mailer and the app
// listening on a real port; sign-up → code from the sink → verify → whoami with fetch.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startApp, uniqueEmail, type TestApp } from '../../test/harness.ts';
import { startSmtpSink, type SmtpSink } from '../../test/support/smtp-sink.ts';

describe('sign-up over real HTTP with a real SMTP server', () => {
  let smtp: SmtpSink;
  let t: TestApp;
  let baseUrl: string;

  before(async () => {
    smtp = await startSmtpSink();
    // No MailCatcher: the app builds its own SMTP mailer from CELLGATE_SMTP_URL.
    t = await startApp({ env: { CELLGATE_SMTP_URL: smtp.url }, deps: { mailer: undefined } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await t.close();
    await smtp.close();
  });

  it('signs up, receives the code by SMTP, verifies and calls whoami', async () => {
    const email = uniqueEmail();
    const signUp = await fetch(`${baseUrl}/v1/agent/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, organization_name: 'E2E Org' }),
    });
    assert.equal(signUp.status, 201);
    assert.match(String(signUp.headers.get('x-request-id')), /^req_/);
    const { api_key: apiKey, organization_id: organizationId } = (await signUp.json()) as {
      api_key: string;
      organization_id: string;
    };

    assert.equal(t.mail.sent.length, 0, 'the mail catcher is not in use');
    const mail = smtp.inbox.find((m) => m.to.includes(email));
    assert.ok(mail, 'the SMTP server received the code');
    const code = mail.raw.match(/verification code is (\d{6})/)?.[1];
    assert.ok(code, 'the mail carries a 6-digit code');

    const verify = await fetch(`${baseUrl}/v1/agent/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ code }),
    });
    assert.equal(verify.status, 200);
    assert.deepEqual(await verify.json(), { organization_id: organizationId, status: 'active' });

    const who = await fetch(`${baseUrl}/v1/auth/whoami`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(who.status, 200);
    const body = (await who.json()) as Record<string, unknown>;
    assert.equal(body.organization_id, organizationId);
    assert.equal(body.organization_name, 'E2E Org');
    assert.equal(body.status, 'active');
  });

  it('answers 503 and writes nothing when the SMTP server refuses the mail', async () => {
    const email = `reject-${uniqueEmail()}`;
    const original = smtp.server.onRcptTo;
    smtp.server.onRcptTo = (address, _session, callback) =>
      callback(address.address === email ? new Error('mailbox unavailable') : undefined);
    try {
      const response = await fetch(`${baseUrl}/v1/agent/sign-up`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      });
      assert.equal(response.status, 503);
      assert.match(String(response.headers.get('content-type')), /^application\/problem\+json/);
      assert.equal(((await response.json()) as { code: string }).code, 'unavailable');
      assert.equal(
        await t.database.db.selectFrom('organizations').select('id').where('email', '=', email).executeTakeFirst(),
        undefined,
      );
    } finally {
      smtp.server.onRcptTo = original;
    }
  });
});
