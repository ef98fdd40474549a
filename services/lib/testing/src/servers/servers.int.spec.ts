import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import { describe, expect, it } from 'vitest';
import { toolsUnavailable } from './daemon';
import { kafkaBrokerUnavailable, startKafkaBroker } from './kafka-broker.server';
import { radosgwUnavailable, startRadosgw } from './radosgw.server';

// The starters themselves, apart from the shared instances: what they start answers,
// and stop() leaves no process behind.

const accepts = (address: string) =>
  new Promise<boolean>((resolve) => {
    const [host, port] = address.split(':');
    const socket = connect(Number(port), host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** processes whose command line mentions `text` */
const processesMentioning = (text: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });

it('names the missing programs and the Debian packages that bring them', () => {
  expect(toolsUnavailable(['sh'], ['dash'])).toBeUndefined();
  expect(toolsUnavailable(['sh', 'packyard-no-such-tool'], ['dash', 'packyard-tools'])).toBe(
    'packyard-no-such-tool not installed (Debian packages dash packyard-tools; as root, node .ci/debian-tools.mjs installs them)',
  );
});

const noBroker = kafkaBrokerUnavailable();
describe.skipIf(noBroker !== undefined)(`startKafkaBroker${noBroker ? ` (skipped: ${noBroker})` : ''}`, () => {
  it('serves the Kafka protocol on every bootstrap address until stopped', async () => {
    const broker = await startKafkaBroker({ brokers: 2 });
    expect(broker.brokers).toHaveLength(2);
    for (const address of broker.brokers) expect(await accepts(address)).toBe(true);
    await broker.stop();
    for (const address of broker.brokers) expect(await accepts(address)).toBe(false);
  });
});

const noRadosgw = radosgwUnavailable();
describe.skipIf(noRadosgw !== undefined)(`startRadosgw${noRadosgw ? ` (skipped: ${noRadosgw})` : ''}`, () => {
  it('answers S3 for its user only, and stop() ends the monitor, the OSD and radosgw', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'packyard-radosgw-spec-'));
    try {
      const radosgw = await startRadosgw({ dir });
      const endpoint = new URL(radosgw.endpoint);
      expect(processesMentioning(dir)).toHaveLength(3);
      const client = (secretKey: string) => new Client({ endPoint: endpoint.hostname, port: Number(endpoint.port), useSSL: false, accessKey: radosgw.accessKey, secretKey });
      await client(radosgw.secretKey).makeBucket('packyard-spec');
      expect((await client(radosgw.secretKey).listBuckets()).map((bucket) => bucket.name)).toEqual(['packyard-spec']);
      await expect(client('wrong-secret').listBuckets()).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
      await radosgw.stop();
      expect(processesMentioning(dir)).toEqual([]);
      expect(await accepts(endpoint.host)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
