import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { escapeXml, isArtifactFormatError, packagesStanza, parseControlFile, parseDeb, parseDsc, parseRpm, sourcesStanza } from '@packyard/formats';
import { buildDeb } from '../packages/deb.builder';
import { craftDeb, validControlText } from '../packages/deb-crafting';
import { buildRpm } from '../packages/rpm.builder';
import { buildSourcePackage } from '../packages/source-package.builder';
import { craftRpm } from '../packages/rpm-crafting';

/**
 * Property-based fuzzing of the package parsers and the index writers (fast-check), seeded
 * from real packages: every input is a real .deb/.rpm or control file with bytes flipped,
 * overwritten, cut or inserted. Properties: a parser either answers or throws its typed
 * format error (anything else is a crash), never takes longer than `hangMs`; a Packages
 * stanza written from any control the parser accepts reads back as exactly those fields
 * and the ones the writer adds (no smuggled field), and so does a Sources stanza written
 * from any .dsc the parser accepts; escaped XML text holds no markup.
 * The unit spec runs it short in CI; `loadtests/fuzz-formats.ts` runs it nightly-sized.
 */
export interface FuzzOptions {
  /** inputs per target */
  runs: number;
  seed?: number;
  /** a single parse taking longer is a hang */
  hangMs?: number;
}

export interface FuzzFigures {
  target: string;
  inputs: number;
  /** inputs the parser accepted (the rest were refused with a typed error) */
  accepted: number;
  slowestMs: number;
}

export interface FuzzSeeds {
  debs: Buffer[];
  rpms: Buffer[];
  controls: string[];
  /** .dsc files: dpkg-source's, and one clearsigned */
  dscs: Buffer[];
}

/** real packages from the builders (dpkg-deb, rpmbuild) and the crafted ones */
export async function fuzzSeeds(): Promise<FuzzSeeds> {
  const dir = await mkdtemp(join(tmpdir(), 'packyard-fuzz-'));
  try {
    const debs = [
      await readFile(await buildDeb({ name: 'fuzz-seed', version: '1.0-1', arch: 'amd64' }, dir)),
      await craftDeb({ control: validControlText('crafted-seed') }),
    ];
    const rpms = [await readFile(await buildRpm({ name: 'fuzz-seed', version: '1.0', release: '1', arch: 'x86_64' }, dir)), craftRpm()];
    const controls = [validControlText('control-seed'), `${validControlText('depends-seed')}Depends: libc6 (>= 2.36), zlib1g\nHomepage: https://example.com\n`];
    const dsc = await readFile((await buildSourcePackage({ name: 'fuzz-seed', upstreamVersion: '1.0' }, join(dir, 'source'))).dsc);
    const clearsigned = Buffer.concat([Buffer.from('-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\n'), dsc, Buffer.from('-----BEGIN PGP SIGNATURE-----\n\niQ==\n-----END PGP SIGNATURE-----\n')]);
    return { debs, rpms, controls, dscs: [dsc, clearsigned] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Mutation = { kind: 'flip' | 'set' | 'insert' | 'cut'; at: number; byte: number };

const mutation = fc.record({ kind: fc.constantFrom<Mutation['kind']>('flip', 'set', 'insert', 'cut'), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) });

function mutate(seed: Buffer, mutations: Mutation[]): Buffer {
  let bytes = Buffer.from(seed);
  for (const { kind, at, byte } of mutations) {
    const position = bytes.length === 0 ? 0 : at % bytes.length;
    if (kind === 'flip' && bytes.length) bytes[position] ^= 1 << (byte % 8);
    else if (kind === 'set' && bytes.length) bytes[position] = byte;
    else if (kind === 'insert') bytes = Buffer.concat([bytes.subarray(0, position), Buffer.from([byte]), bytes.subarray(position)]);
    else if (kind === 'cut') bytes = bytes.subarray(0, position);
  }
  return bytes;
}

const mutatedFrom = (seeds: Buffer[]) =>
  fc.tuple(fc.nat({ max: seeds.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 8 })).map(([index, mutations]) => mutate(seeds[index], mutations));

async function withinTime<T>(work: Promise<T>, hangMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${hangMs} ms (hang)`)), hangMs)));
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function fuzzParser(target: string, seeds: Buffer[], parse: (input: Readable) => Promise<unknown>, options: FuzzOptions): Promise<FuzzFigures> {
  const figures: FuzzFigures = { target, inputs: 0, accepted: 0, slowestMs: 0 };
  const hangMs = options.hangMs ?? 5000;
  await fc.assert(
    fc.asyncProperty(mutatedFrom(seeds), async (bytes) => {
      figures.inputs++;
      const started = performance.now();
      try {
        await withinTime(parse(Readable.from([bytes])), hangMs);
        figures.accepted++;
      } catch (error) {
        if (!isArtifactFormatError(error)) throw error;
      } finally {
        figures.slowestMs = Math.max(figures.slowestMs, performance.now() - started);
      }
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

/** the fields apt reads from a stanza: every line not continuing the one before starts one */
const fieldNames = (stanza: string) =>
  stanza
    .split('\n')
    .filter((line) => line !== '' && !/^[ \t]/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')));

async function fuzzStanzaWriter(controls: string[], options: FuzzOptions): Promise<FuzzFigures> {
  const figures: FuzzFigures = { target: 'control parser → Packages stanza writer', inputs: 0, accepted: 0, slowestMs: 0 };
  const seeds = controls.map((text) => Buffer.from(text));
  const digests = { size: 1, md5: '0'.repeat(32), sha1: '0'.repeat(40), sha256: '0'.repeat(64), sha512: '0'.repeat(128) };
  fc.assert(
    fc.property(mutatedFrom(seeds), fc.string(), (bytes, poolName) => {
      figures.inputs++;
      let control;
      try {
        control = parseControlFile(bytes.toString('utf8'));
      } catch (error) {
        if (isArtifactFormatError(error)) return;
        throw error;
      }
      figures.accepted++;
      const filename = `pool/main/${poolName.replace(/[\n\r]/g, '')}.deb`;
      const stanza = packagesStanza({ control, filename, file: digests });
      // what the writer wrote reads back as the package's fields plus its own, nothing more
      // (in apt-ftparchive's order, so compared as sets)
      expectSameFields(fieldNames(stanza), [...control.map((field) => field.name), 'Filename', 'Size', 'MD5sum', 'SHA1', 'SHA256', 'SHA512']);
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

function fuzzSourcesWriter(dscs: Buffer[], options: FuzzOptions): FuzzFigures {
  const figures: FuzzFigures = { target: '.dsc parser → Sources stanza writer', inputs: 0, accepted: 0, slowestMs: 0 };
  const digests = { size: 1, md5: '0'.repeat(32), sha1: '0'.repeat(40), sha256: '0'.repeat(64), sha512: '0'.repeat(128) };
  fc.assert(
    fc.property(mutatedFrom(dscs), (bytes) => {
      figures.inputs++;
      const started = performance.now();
      let dsc;
      try {
        dsc = parseDsc(bytes);
      } catch (error) {
        if (isArtifactFormatError(error)) return;
        throw error;
      } finally {
        figures.slowestMs = Math.max(figures.slowestMs, performance.now() - started);
      }
      figures.accepted++;
      const stanza = sourcesStanza({ control: dsc.control, directory: 'pool/main/f/fuzz', files: dsc.files.map((file) => ({ ...digests, name: file.name })) });
      const fields = dsc.control.map((field) => (field.name.toLowerCase() === 'source' ? 'Package' : field.name));
      expectSameFields(fieldNames(stanza), [...fields, 'Directory', 'Files', 'Checksums-Sha1', 'Checksums-Sha256', 'Checksums-Sha512']);
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

function fuzzXmlEscape(options: FuzzOptions): FuzzFigures {
  const figures: FuzzFigures = { target: 'XML text escaping (repodata writer)', inputs: 0, accepted: 0, slowestMs: 0 };
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (value) => {
      figures.inputs++;
      const escaped = escapeXml(value);
      // eslint-disable-next-line no-control-regex -- characters XML 1.0 forbids are the point
      if (/[<>"]|&(?!(amp|lt|gt|quot);)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(escaped)) throw new Error(`unsafe XML text ${JSON.stringify(escaped)}`);
      figures.accepted++;
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return figures;
}

function expectSameFields(actual: string[], expected: string[]) {
  const sorted = (names: string[]) => [...names].sort().join('\n');
  if (sorted(actual) !== sorted(expected)) throw new Error(`stanza fields ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

/** runs every target; throws fast-check's report (with the shrunk counterexample) on the first failure */
export async function fuzzFormats(seeds: FuzzSeeds, options: FuzzOptions): Promise<FuzzFigures[]> {
  return [
    await fuzzParser('.deb parser', seeds.debs, (input) => parseDeb(input), options),
    await fuzzParser('.rpm parser', seeds.rpms, (input) => parseRpm(input), options),
    await fuzzStanzaWriter(seeds.controls, options),
    fuzzSourcesWriter(seeds.dscs, options),
    fuzzXmlEscape(options),
  ];
}
