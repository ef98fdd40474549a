import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChecked } from '../clients/run-command';
import { freePort, spawnDaemon, toolsUnavailable, waitFor, type Daemon } from './daemon';

export interface RunningRadosgw {
  /** S3 endpoint, e.g. http://127.0.0.1:40123 */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  stop(): Promise<void>;
}

export const RADOSGW_PROGRAMS = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'ceph', 'ceph-authtool', 'monmaptool'];
export const RADOSGW_PACKAGES = ['radosgw', 'ceph-mon', 'ceph-osd', 'ceph-common'];

/** why radosgw cannot start on this machine, or undefined when it can */
export const radosgwUnavailable = () => toolsUnavailable(RADOSGW_PROGRAMS, RADOSGW_PACKAGES);

/** a ceph CLI call; a monitor that refuses us would otherwise block it for 300 s */
const ceph = (seconds: number, program: string, args: string[], cwd: string) => runChecked('timeout', [String(seconds), program, ...args], { cwd });

/**
 * Ceph's S3 gateway on a single-node cluster made for this test run: one monitor, one
 * OSD keeping objects in memory (memstore), no cephx auth, radosgw on a free loopback
 * port, and one S3 user. It is a real S3 implementation (multipart, ranged GETs, copies,
 * presigned URLs), not MinIO or AWS; nothing persists across a stop. Answers S3 after
 * about 10-15 s.
 */
export async function startRadosgw(options: { dir?: string; timeoutMs?: number } = {}): Promise<RunningRadosgw> {
  const unavailable = radosgwUnavailable();
  if (unavailable) throw new Error(`radosgw cannot start: ${unavailable}`);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'packyard-radosgw-'));
  const ownDir = !options.dir;
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  const [monPort, s3Port] = [await freePort(), await freePort()];
  const fsid = randomUUID();
  const conf = join(dir, 'ceph.conf');
  for (const sub of ['run', 'log', 'mon', 'osd/osd.0', 'rgw/client.rgw']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(
    conf,
    [
      '[global]',
      `fsid = ${fsid}`,
      `mon host = v2:127.0.0.1:${monPort}`,
      'public network = 127.0.0.1/32',
      'auth cluster required = none',
      'auth service required = none',
      'auth client required = none',
      // without crc on every messenger the daemons fail to authenticate and wait 300 s
      ...['cluster', 'service', 'client', 'mon cluster', 'mon service', 'mon client'].map((kind) => `ms ${kind} mode = crc`),
      `run dir = ${dir}/run`,
      `admin socket = ${dir}/run/$name.asok`,
      `log file = ${dir}/log/$name.log`,
      `keyring = ${dir}/keyring`,
      `mon data = ${dir}/mon/$name`,
      `osd data = ${dir}/osd/$name`,
      'osd objectstore = memstore',
      'memstore device bytes = 4294967296',
      'osd pool default size = 1',
      'osd pool default min size = 1',
      'mon allow pool size one = true',
      // memstore has no object-name limit of its own; ceph-osd refuses to start without these
      'osd max object name len = 460',
      'osd max object namespace len = 64',
      `rgw frontends = beast endpoint=127.0.0.1:${s3Port}`,
      `rgw data = ${dir}/rgw/$name`,
      '',
    ].join('\n'),
  );
  const daemons: Daemon[] = [];
  const stop = async () => {
    for (const daemon of daemons.reverse()) await daemon.stop();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  const logs = () =>
    readdirSync(join(dir, 'log'))
      .map((file) => `--- ${file}\n${readFileSync(join(dir, 'log', file), 'utf8').split('\n').slice(-30).join('\n')}`)
      .join('\n');
  try {
    await ceph(30, 'ceph-authtool', ['--create-keyring', 'keyring', '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *'], dir);
    await ceph(30, 'monmaptool', ['--create', '--add', 'a', `v2:127.0.0.1:${monPort}`, '--fsid', fsid, 'monmap'], dir);
    await ceph(30, 'ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', 'monmap', '--keyring', 'keyring'], dir);
    daemons.push(spawnDaemon('ceph-mon', 'ceph-mon', ['-f', '-c', conf, '-i', 'a'], { cwd: dir }));
    const osdId = (await ceph(60, 'ceph', ['-c', conf, 'osd', 'create'], dir)).stdout.trim();
    await ceph(60, 'ceph-osd', ['-c', conf, '-i', osdId, '--mkfs'], dir);
    daemons.push(spawnDaemon('ceph-osd', 'ceph-osd', ['-f', '-c', conf, '-i', osdId], { cwd: dir }));
    daemons.push(spawnDaemon('radosgw', 'radosgw', ['-f', '-c', conf, '-n', 'client.rgw'], { cwd: dir }));
    const endpoint = `http://127.0.0.1:${s3Port}`;
    await waitFor('radosgw to answer S3', async () => ((await fetch(endpoint)).status < 500 ? true : undefined), deadline, daemons);
    const [accessKey, secretKey] = ['packyard-test', randomUUID()];
    const remaining = Math.max(5, Math.round((deadline - Date.now()) / 1000));
    await ceph(remaining, 'radosgw-admin', ['-c', conf, 'user', 'create', '--uid=packyard-test', '--display-name=Packyard tests', `--access-key=${accessKey}`, `--secret-key=${secretKey}`], dir);
    return { endpoint, accessKey, secretKey, stop };
  } catch (error) {
    const detail = logs();
    await stop();
    throw new Error(`radosgw did not start: ${(error as Error).message}\n${detail}`, { cause: error });
  }
}
