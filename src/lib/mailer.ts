// Outgoing mail is an injected dependency: SMTP through nodemailer in production; without SMTP,
// the mail goes to the log and to the dev outbox that admins read at GET /v1/admin/outbox.
import type { FastifyBaseLogger } from 'fastify';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** SMTP through nodemailer, loaded only when SMTP is configured (it weighs ~25 MB of memory). */
export async function smtpMailer(url: string, from: string): Promise<Mailer> {
  const transport = (await import('nodemailer')).default.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}

export function devMailer(store: (mail: Mail) => Promise<void>, log: FastifyBaseLogger): Mailer {
  return {
    async send(mail) {
      await store(mail);
      // Only the recipient: the subject and text carry one-time codes (the outbox keeps them).
      log.info({ to: mail.to }, 'mail kept in the dev outbox (no SMTP configured; GET /v1/admin/outbox)');
    },
    close: () => {},
  };
}
