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
  /** Set when nothing is sent: the mail is kept in the dev outbox (no SMTP configured). */
  readonly outbox?: DevOutbox;
}

/** The dev outbox behind the dev mailer: pages that told "we emailed you" say where the mail went instead. */
export interface DevOutbox {
  /** The newest mail kept for this address, or null. */
  latestTo(to: string): Promise<Mail | null>;
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

export function devMailer(outbox: DevOutbox & { keep(mail: Mail): Promise<void> }, log: FastifyBaseLogger): Mailer {
  return {
    outbox: { latestTo: (to) => outbox.latestTo(to) },
    async send(mail) {
      await outbox.keep(mail);
      // Only the recipient: the subject and text carry one-time codes (the outbox keeps them).
      log.info({ to: mail.to }, 'mail kept in the dev outbox (no SMTP configured; GET /v1/admin/outbox)');
    },
    close: () => {},
  };
}
