import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { inThreadDigester, parseDeb, parseRpm, type StreamDigester } from '@packyard/formats';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';
import { WorkerDigesters } from './worker-digester';

const ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
const digesters = new WorkerDigesters();
afterAll(() => digesters.close());

async function feed(digester: StreamDigester, chunks: Buffer[]) {
  for (const chunk of chunks) await digester.update(chunk);
  return digester.digest();
}

describe('worker digesters', () => {
  it('give the digests the calling thread computes, for views into larger buffers too', async () => {
    const whole = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = [whole.subarray(0, 1), whole.subarray(1, 65_536), whole.subarray(65_536)];
    const expected = await feed(inThreadDigester(ALGORITHMS), chunks);
    expect(await feed(digesters.inWorker(ALGORITHMS), chunks)).toEqual(expected);
    expect(await feed(digesters.digester(ALGORITHMS), chunks)).toEqual(expected);
  });

  it('keep parallel jobs apart', async () => {
    const inputs = [randomBytes(100_000), randomBytes(200_000), Buffer.alloc(0)];
    const results = await Promise.all(inputs.map((input) => feed(digesters.digester(ALGORITHMS), [input])));
    expect(results).toEqual(await Promise.all(inputs.map((input) => feed(inThreadDigester(ALGORITHMS), [input]))));
  });

  it('make the reader wait while more than 8 MiB are not hashed yet', async () => {
    const digester = digesters.inWorker(ALGORITHMS);
    const chunk = randomBytes(1024 * 1024);
    const answers = Array.from({ length: 9 }, () => digester.update(chunk));
    expect(answers.slice(0, 8).every((answer) => answer === undefined)).toBe(true);
    expect(answers[8]).toBeInstanceOf(Promise);
    await answers[8];
    expect(await digester.digest()).toEqual(await feed(inThreadDigester(ALGORITHMS), Array(9).fill(chunk)));
  });

  it('serve the parsers, which then report the same file digests', async () => {
    const deb = await craftDeb({ control: validControlText('hashed-elsewhere'), dataFiles: [{ name: './usr/share/x', data: randomBytes(2_000_000) }] });
    const chunks = () => Readable.from([deb.subarray(0, 1000), deb.subarray(1000)]);
    expect((await parseDeb(chunks(), {}, { digester: digesters.digester })).file).toEqual((await parseDeb(chunks())).file);
    await expect(parseRpm(chunks(), {}, { digester: digesters.digester })).rejects.toThrow();
  });
});
