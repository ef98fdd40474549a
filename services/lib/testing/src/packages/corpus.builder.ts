import { access, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { craftDeb } from './deb-crafting';
import { buildRpmBatch, type RpmSpec } from './rpm.builder';

const COMPLETE_MARKER = '.complete';
// One rpmbuild run makes a whole batch as subpackages; two run at once (two cores here).
const RPM_BATCH_SIZE = 500;
const RPM_WORKERS = 2;

/**
 * `count` small packages for benchmarks, built once into `cacheDir/<kind>-<count>` and
 * reused afterwards. .debs are written directly (the archive format is three members,
 * dpkg-deb would add a process per package); .rpms come from rpmbuild in batches.
 * An interrupted build resumes: batches whose packages all exist are not built again.
 */
export async function buildCorpus(kind: 'deb' | 'rpm', count: number, cacheDir: string): Promise<string[]> {
  const directory = join(cacheDir, `${kind}-${count}`);
  if (await exists(join(directory, COMPLETE_MARKER))) return listPackages(directory);
  await mkdir(directory, { recursive: true });
  if (kind === 'deb') await writeDebCorpus(count, directory);
  else await writeRpmCorpus(count, directory);
  await writeFile(join(directory, COMPLETE_MARKER), `${count}\n`);
  return listPackages(directory);
}

async function writeDebCorpus(count: number, directory: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const name = corpusName(i);
    const architecture = i % 10 === 0 ? 'all' : 'amd64';
    const control =
      `Package: ${name}\nVersion: 1.${i}-1\nArchitecture: ${architecture}\nMaintainer: Packyard Bench <bench@packyard.example>\n` +
      `Installed-Size: ${1 + (i % 50)}\nDepends: libc6 (>= 2.17)${i > 0 ? `, ${corpusName(i - 1)}` : ''}\nSection: misc\nPriority: optional\n` +
      `Description: benchmark package ${i}\n A small package in the Packyard benchmark corpus.\n`;
    await writeFile(join(directory, `${name}_1.${i}-1_${architecture}.deb`), await craftDeb({ control, dataFiles: [{ name: `./usr/share/doc/${name}/README`, data: `${name}\n` }] }));
  }
}

async function writeRpmCorpus(count: number, directory: string): Promise<void> {
  const batches: RpmSpec[][] = [];
  for (let start = 0; start < count; start += RPM_BATCH_SIZE) {
    batches.push(
      Array.from({ length: Math.min(RPM_BATCH_SIZE, count - start) }, (_, offset) => {
        const i = start + offset;
        return {
          name: corpusName(i), version: '1.0', release: '1', arch: 'noarch' as const,
          requires: i > 0 ? [corpusName(i - 1)] : [], files: [`/usr/bin/${corpusName(i)}`, `/usr/share/doc/${corpusName(i)}/README`],
          changelog: [{ date: 'Mon Jan 01 2024', author: 'Packyard Bench <bench@packyard.example> - 1.0-1', text: 'Benchmark build.' }],
        };
      }),
    );
  }
  const present = new Set(await readdir(directory));
  const missing = batches.filter((batch) => !batch.every((spec) => present.has(`${spec.name}-1.0-1.noarch.rpm`)));
  let next = 0;
  const worker = async () => {
    while (next < missing.length) await buildRpmBatch(missing[next++], directory);
  };
  await Promise.all(Array.from({ length: RPM_WORKERS }, worker));
}

const corpusName = (i: number) => `bench-${String(i).padStart(5, '0')}`;

async function listPackages(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter((name) => !name.startsWith('.')).sort().map((name) => join(directory, name));
}

const exists = (path: string) => access(path).then(() => true, () => false);
