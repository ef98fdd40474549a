import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../program';
import { KAFKA_BROKER_PACKAGES } from './kafka-broker.server';
import { RADOSGW_PACKAGES } from './radosgw.server';

// A skip reason tells the user to run .ci/debian-tools.mjs: it must install what it names.
it('installs with .ci/debian-tools.mjs every Debian package the shared servers need', () => {
  const listed: string[] = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', "import { DEBIAN_TOOLS } from './.ci/debian-tools.mjs'; console.log(JSON.stringify(Object.keys(DEBIAN_TOOLS)))"], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    }),
  );
  expect(listed).toEqual(expect.arrayContaining([...RADOSGW_PACKAGES, ...KAFKA_BROKER_PACKAGES]));
});
