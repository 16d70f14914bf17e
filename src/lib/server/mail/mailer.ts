import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log';
import type { MailSettings } from '../env';

export interface Message {
  to: string;
  subject: string;
  text: string;
}

/** Where e-mail and text messages go: real SMTP / an SMS provider, or the outbox folder in development. */
export interface Mailer {
  /** True when e-mail only lands in the outbox (the UI tells administrators). */
  readonly outbox: boolean;
  /** True when text messages only land in the outbox (no SMS_HTTP_URL). */
  readonly smsOutbox: boolean;
  /** The folder messages are written to when there is no provider (`DATA_DIR/outbox`). */
  readonly outboxDir: string;
  sendMail(message: Message): Promise<void>;
  sendSms(mobile: string, template: string, text: string): Promise<void>;
  close(): void;
}

function safeName(value: string): string {
  return value.replace(/[^\w.@+-]/g, '_').slice(0, 80);
}

export async function createMailer(settings: MailSettings, log: Logger): Promise<Mailer> {
  const toOutbox = (kind: string, to: string, body: string): void => {
    mkdirSync(settings.outboxDir, { recursive: true });
    const file = join(settings.outboxDir, `${Date.now()}-${kind}-${safeName(to)}.txt`);
    writeFileSync(file, body);
    log.info(`${kind} to ${to} written to ${file} (no ${kind === 'mail' ? 'SMTP_HOST' : 'SMS_HTTP_URL'} configured)`);
  };
  let transport: { sendMail(m: object): Promise<unknown>; close(): void } | null = null;
  if (settings.smtpHost) {
    const { default: nodemailer } = await import('nodemailer');
    transport = nodemailer.createTransport({
      host: settings.smtpHost,
      port: settings.smtpPort,
      secure: settings.smtpSecure,
      auth: settings.smtpUser ? { user: settings.smtpUser, pass: settings.smtpPass ?? '' } : undefined,
      // Without credentials there is nothing to protect in transit on a local relay; with them, insist on TLS.
      ignoreTLS: !settings.smtpUser && !settings.smtpSecure,
    });
  }
  return {
    outbox: !transport,
    smsOutbox: !settings.smsUrl,
    outboxDir: settings.outboxDir,
    async sendMail(message) {
      if (!transport) return toOutbox('mail', message.to, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`);
      await transport.sendMail({ from: settings.smtpFrom, to: message.to, subject: message.subject, text: message.text });
    },
    async sendSms(mobile, template, text) {
      if (!settings.smsUrl) return toOutbox('sms', mobile, `To: ${mobile}\nTemplate: ${template}\n\n${text}\n`);
      // The documented HTTP provider: POST JSON, any 2xx is success (docs/operators/configuration.md, "Mail and text messages").
      const res = await fetch(settings.smsUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(settings.smsToken ? { authorization: `Bearer ${settings.smsToken}` } : {}) },
        body: JSON.stringify({ mobile, template, text }),
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`SMS provider answered HTTP ${res.status}`);
    },
    close: () => transport?.close(),
  };
}
