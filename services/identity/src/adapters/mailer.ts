import type { Transporter } from 'nodemailer';

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
  // nodemailer loads at the first mail (about 45 ms of every start otherwise, most of which send none)
  let transport: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      transport ??= import('nodemailer').then(({ createTransport }) => createTransport(smtpUrl));
      await (await transport).sendMail({ from, ...mail });
    },
  };
}
