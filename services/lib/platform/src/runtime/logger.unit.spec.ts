import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, humanLine } from './logger';

const collect = (isTTY: boolean) => {
  const out = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  out.on('data', (chunk) => (text += chunk));
  return { out, text: () => text };
};
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('log lines', () => {
  it('reads as text on a terminal: time, level, module, message, fields, and an error stack below', () => {
    const line = humanLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 2, 12, 4, 5, 123), pid: 1, hostname: 'h', name: 'packyard', module: 'delivery', msg: 'retrying', messages: 3, target: 'a b' }));
    expect(line).toBe('12:04:05.123 WARN  delivery: retrying messages=3 target="a b"');
    const failed = humanLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }));
    expect(failed).toBe('00:00:00.000 ERROR failed\n    Error: boom\n        at x');
    expect(humanLine('not json')).toBe('not json');
  });

  it('is JSON unless the output is a terminal or pretty is asked for, and redacts tokens either way', async () => {
    const pipe = collect(false);
    createLogger('info', 'packyard', 'auto', pipe.out).info({ body: { token: 'pk_secret' } }, 'hello');
    await settle();
    expect(JSON.parse(pipe.text())).toMatchObject({ msg: 'hello', body: { token: '[redacted]' } });

    const tty = collect(true);
    createLogger('info', 'packyard', 'auto', tty.out).info({ body: { token: 'pk_secret' } }, 'hello');
    await settle();
    expect(tty.text()).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} INFO {2}hello body={"token":"\[redacted\]"}\n$/);

    const forced = collect(false);
    createLogger('info', 'packyard', 'pretty', forced.out).info('plain');
    const json = collect(true);
    createLogger('info', 'packyard', 'json', json.out).info('plain');
    await settle();
    expect(forced.text()).toMatch(/INFO {2}plain\n$/);
    expect(JSON.parse(json.text())).toMatchObject({ msg: 'plain' });
  });
});
