import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** the raw message (headers and body) as the server received it */
  raw: string;
  /** the body of a single-part text message, quoted-printable decoded */
  text: string;
}

/** the body of a single-part message, undoing quoted-printable (RFC 2045 §6.7) when the headers say so */
function bodyOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const [headers, body] = split < 0 ? ['', raw] : [raw.slice(0, split), raw.slice(split + 4)];
  if (!/^content-transfer-encoding:\s*quoted-printable/im.test(headers)) return body;
  return Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

export interface MailSink {
  /** for SMTP_URL */
  url: string;
  received: ReceivedMail[];
  /** the oldest message to `to` not handed out before (waits for it) */
  nextTo(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 (any free port) that keeps what it is sent, for tests of e-mail. */
export async function startMailSink(): Promise<MailSink> {
  const received: ReceivedMail[] = [];
  // what nextTo() has handed out already
  const taken = new WeakSet<ReceivedMail>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          text: bodyOf(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async nextTo(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.find((candidate) => !taken.has(candidate) && candidate.to.includes(to));
        if (mail) {
          taken.add(mail);
          return mail;
        }
        if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
