import { pino, type Logger } from 'pino';

export type { Logger };

export const createLogger = (level: string, name = 'packyard'): Logger =>
  pino({
    name,
    level,
    // secrets never reach the log, whichever module logs a request or an error
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.token', '*.refreshToken'], censor: '[redacted]' },
  });
