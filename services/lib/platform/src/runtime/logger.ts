import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type { Logger };

export type LogFormat = 'auto' | 'json' | 'pretty';

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
// the fields every line has, shown in the line's head rather than repeated as key=value
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'module']);

const fieldValue = (value: unknown) => (typeof value === 'string' && !/[\s"=]/.test(value) ? value : JSON.stringify(value));

/**
 * One pino JSON line as a person reads it on a terminal:
 * `12:04:05.123 INFO  delivery: HTTP server listening port=8080`, an error's stack below.
 */
export function humanLine(json: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = new Date(Number(record.time)).toISOString().slice(11, 23);
  const level = (LEVEL_NAMES[Number(record.level)] ?? String(record.level)).padEnd(5);
  const where = record.module ? `${String(record.module)}: ` : '';
  const err = record.err as { stack?: string; message?: string } | undefined;
  const fields = Object.entries(record)
    .filter(([key]) => !HEAD_FIELDS.has(key) && key !== 'err')
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  const head = [`${time} ${level} ${where}${String(record.msg ?? '')}`, ...fields].join(' ');
  return err ? `${head}\n    ${(err.stack ?? err.message ?? JSON.stringify(err)).replaceAll('\n', '\n    ')}` : head;
}

/** A destination that writes each JSON line pino gives it as `humanLine` text. */
function humanStream(out: NodeJS.WritableStream): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      out.write(lines.map((line) => `${humanLine(line)}\n`).join(''));
      done();
    },
  });
}

export const createLogger = (level: string, name = 'packyard', format: LogFormat = 'json', out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Logger => {
  const options = {
    name,
    level,
    // secrets never reach the log, whichever module logs a request or an error
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.token', '*.refreshToken'], censor: '[redacted]' },
  };
  if (format === 'pretty' || (format === 'auto' && out.isTTY === true)) return pino(options, humanStream(out));
  // JSON to stdout keeps pino's own synchronous destination
  return out === process.stdout ? pino(options) : pino(options, out);
};
