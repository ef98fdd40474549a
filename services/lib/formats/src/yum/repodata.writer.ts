import { createHash } from 'node:crypto';
import { type GzipBlockCache, gzipInBlocks } from '../common/gzip-blocks';
import { gzip, type IndexFile, indexFile, turnBeforeHashing } from '../common/index-file';
import { escapeXml } from '../common/xml-escape';
import type { YumPackageFragments } from './yum-package.fragments';

export interface RepodataOptions {
  /** repomd `<revision>`; createrepo_c uses the build time in seconds. */
  readonly revision: string;
  /** Seconds since the epoch written as each file's `<timestamp>`. */
  readonly timestamp: number;
  /**
   * Further metadata beside primary/filelists/other, as `modifyrepo_c <file>` adds it:
   * gzipped under `repodata/<sha256>-<type>.xml.gz` and listed with the open file's digest.
   */
  readonly additional?: readonly { readonly type: string; readonly xml: string }[];
}

export interface Repodata {
  /** `repodata/repomd.xml`: the file to sign and to publish last. */
  readonly repomd: IndexFile;
  /** The gzipped metadata, named `repodata/<sha256>-<type>.xml.gz` as createrepo_c names them. */
  readonly files: readonly IndexFile[];
}

const METADATA = [
  { type: 'primary', fragment: 'primary', open: (count: number) => `<metadata xmlns="http://linux.duke.edu/metadata/common" xmlns:rpm="http://linux.duke.edu/metadata/rpm" packages="${count}">\n`, close: '</metadata>\n' },
  { type: 'filelists', fragment: 'filelists', open: (count: number) => `<filelists xmlns="http://linux.duke.edu/metadata/filelists" packages="${count}">\n`, close: '</filelists>\n' },
  { type: 'other', fragment: 'other', open: (count: number) => `<otherdata xmlns="http://linux.duke.edu/metadata/other" packages="${count}">\n`, close: '</otherdata>\n' },
] as const;

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** each file's closing tag as its last gzip member, compressed once: every build ends its files with the same one */
const gzippedCloses = new Map<string, Promise<Buffer>>();
function gzippedClose(close: string): Promise<Buffer> {
  let gzipped = gzippedCloses.get(close);
  if (!gzipped) {
    gzippedCloses.set(close, (gzipped = gzip(Buffer.from(close, 'utf8'))));
    // a failure is not kept for the builds after it
    gzipped.catch(() => gzippedCloses.delete(close));
  }
  return gzipped;
}

/** One package's fragments, keyed by what makes them (the package and its location). */
export interface KeyedYumFragments {
  readonly key: string;
  readonly fragments: YumPackageFragments;
  /** blockEndsAfter(key), kept by the caller (IndexPiece's endsBlock) */
  readonly endsBlock?: boolean;
}

/** primary, filelists and other (gzipped, content-addressed) and the repomd.xml listing them. */
export async function buildRepodata(packages: readonly KeyedYumFragments[], options: RepodataOptions, cache?: GzipBlockCache): Promise<Repodata> {
  // every file's new blocks go to the thread pool first; the open files are hashed here meanwhile
  const started = METADATA.map((metadata) => {
    const head = Buffer.from(XML_DECLARATION + metadata.open(packages.length), 'utf8');
    const pieces = packages.map(({ key, fragments, endsBlock }) => ({ key, text: fragments[metadata.fragment], endsBlock }));
    const { plain, blocks } = gzipInBlocks(metadata.type, pieces, cache);
    return { type: metadata.type, open: [head, ...plain, Buffer.from(metadata.close, 'utf8')], gzipped: Promise.all([gzip(head), blocks, gzippedClose(metadata.close)]) };
  });
  const documents = await Promise.all(
    started.map(async ({ type, open, gzipped }) => {
      // met below, after the hashing: a failure meanwhile is not an unhandled rejection
      gzipped.catch(() => undefined);
      const size = open.reduce((sum, part) => sum + part.length, 0);
      await turnBeforeHashing(size);
      // the open file is only listed, never stored: hashed part by part, not joined (megabytes copied per build)
      const openHash = createHash('sha256');
      for (const part of open) openHash.update(part);
      const openFile = { size, sha256: openHash.digest('hex') };
      const [gzippedHead, blocks, gzippedTail] = await gzipped;
      const compressed = indexFile('', Buffer.concat([gzippedHead, ...blocks.map((block) => block.gzipped), gzippedTail]));
      return { type, open: openFile, compressed: { ...compressed, path: `repodata/${compressed.sha256}-${type}.xml.gz` } };
    }),
  );
  const additional = await Promise.all(
    (options.additional ?? []).map(async ({ type, xml }) => {
      const open = indexFile('', Buffer.from(xml, 'utf8'));
      const compressed = indexFile('', await gzip(open.bytes));
      return { type, open, compressed: { ...compressed, path: `repodata/${compressed.sha256}-${type}.xml.gz` } };
    }),
  );
  const all = [...documents, ...additional];
  const repomd =
    XML_DECLARATION +
    '<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">\n' +
    `  <revision>${escapeXml(options.revision)}</revision>\n` +
    all
      .map(
        ({ type, open, compressed }) =>
          `  <data type="${type}">\n` +
          `    <checksum type="sha256">${compressed.sha256}</checksum>\n` +
          `    <open-checksum type="sha256">${open.sha256}</open-checksum>\n` +
          `    <location href="${compressed.path}"/>\n` +
          `    <timestamp>${options.timestamp}</timestamp>\n` +
          `    <size>${compressed.size}</size>\n` +
          `    <open-size>${open.size}</open-size>\n` +
          '  </data>\n',
      )
      .join('') +
    '</repomd>\n';
  return { repomd: indexFile('repodata/repomd.xml', Buffer.from(repomd, 'utf8')), files: all.map((document) => document.compressed) };
}
