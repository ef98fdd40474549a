import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PublishablePackage } from '../packages/publishable-package';
import { InputsDigests } from './inputs-digest';
import type { PublishedRepository } from './publication-layout';

// The digest is recorded with every generation (IndexPublished's inputsDigest) and compared
// at the next build and after every restart: what it is computed from, and how, must not
// change, or every repository would be built and signed again. This is its definition as
// the digests of existing installs were made, written out plainly: the layout, then the
// packages sorted by id, one line each.

const repository: PublishedRepository = { id: 'r1', kind: 'DEB', workspaceId: 'w1', workspaceSlug: 'acme', ownerId: 'u1', name: 'tools', codename: 'noble', component: 'main' };
const target = { distro: 'ubuntu', version: 'noble' };

function definition(packages: readonly PublishablePackage[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([2, repository.kind, repository.workspaceSlug, repository.name, repository.codename, repository.component, target.distro, target.version]));
  for (const pkg of [...packages].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) hash.update(`\n${pkg.id} ${pkg.sha256} ${pkg.distribution}`);
  return hash.digest('hex');
}

let made = 0;
const pkg = (): PublishablePackage => ({
  id: randomUUID(),
  repositoryId: 'r1',
  kind: 'DEB',
  distribution: 'ubuntu/noble',
  name: `p${made}`,
  version: '1.0',
  architecture: 'amd64',
  filename: `p${made}_1.0_amd64.deb`,
  sizeBytes: 100,
  sha256: createHash('sha256').update(String(made++)).digest('hex'),
  blobKey: 'b',
  uploadedAt: '2026-11-28T00:00:00.000Z',
  indexEntryJson: '{}',
  sourceFiles: [],
});

describe('the inputs digest, kept from build to build', () => {
  it('given builds that add, remove and keep packages in any order, when each is digested, then every digest is the definition’s', () => {
    const digests = new InputsDigests();
    // more than two chunks of the lines between kept hash states
    let packages = Array.from({ length: 2600 }, pkg);
    for (let build = 0; build < 12; build++) {
      expect(digests.of('publication-r1-ubuntu-noble', repository, target, packages, [])).toBe(definition(packages));
      // the next build: a few removed, a few added at the end (as uploads arrive), the rest shuffled
      packages = packages.filter((_, index) => build % 2 === 0 || (index + build) % 397 !== 0);
      packages.push(...Array.from({ length: build % 4 }, pkg));
      if (build % 3 === 0) packages.reverse();
    }
  });

  it('given the same packages again, then the same digest; one package more or another distribution, then another', () => {
    const digests = new InputsDigests();
    const packages = Array.from({ length: 50 }, pkg);
    const first = digests.of('s', repository, target, packages, []);
    expect(digests.of('s', repository, target, [...packages].reverse(), [])).toBe(first);
    expect(digests.of('s', repository, target, [...packages, pkg()], [])).not.toBe(first);
    expect(digests.of('other', repository, { distro: 'debian', version: 'bookworm' }, packages, [])).not.toBe(first);
  });

  it('given a package uploaded again with other bytes under the same id, then the digest follows it', () => {
    const digests = new InputsDigests();
    const packages = Array.from({ length: 20 }, pkg);
    digests.of('s', repository, target, packages, []);
    const changed = [...packages.slice(1), { ...packages[0], sha256: 'f'.repeat(64) }];
    expect(digests.of('s', repository, target, changed, [])).toBe(definition(changed));
  });
});
