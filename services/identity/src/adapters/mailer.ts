import { createTransport } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** How identity sends e-mail; absent when SMTP_URL is unset. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** SMTP through nodemailer: `smtp://` (STARTTLS when offered) or `smtps://`, credentials in the URL. */
export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = createTransport(smtpUrl);
  return {
    async send(mail) {
      await transport.sendMail({ from, ...mail });
    },
  };
}
