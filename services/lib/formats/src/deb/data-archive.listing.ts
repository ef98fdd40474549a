import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import lzma from 'lzma-native';
import { extract } from 'tar-stream';
import type { Compression } from './control-archive.decompression';

/** What a .deb installs: the paths of data.tar's files and links (not its directories), as `dpkg -c` lists them. */
export interface DebContents {
  /** absolute paths, in archive order, at most `maxPaths` */
  readonly paths: readonly string[];
  /** paths seen, which is more than `paths` holds when the list was cut */
  readonly total: number;
  /** why the list is incomplete or missing; absent when it is whole */
  readonly note?: string;
}

export interface DataListingLimits {
  readonly maxPaths: number;
  /** data.tar bytes read after decompression before the listing stops (a "bomb" costs no more) */
  readonly maxTarBytes: number;
}

export const DEFAULT_DATA_LISTING_LIMITS: DataListingLimits = { maxPaths: 10_000, maxTarBytes: 512 * 1024 * 1024 };

// Small input slices bound how much one push can inflate before it is handed on.
const ZSTD_INPUT_SLICE = 64 * 1024;

function decompressed(chunks: AsyncIterable<Uint8Array>, compression: Compression): AsyncIterable<Uint8Array> {
  switch (compression) {
    case 'none':
      return chunks;
    case 'gzip':
      return pipeline(Readable.from(chunks), createGunzip(), () => undefined);
    case 'xz':
      return pipeline(Readable.from(chunks), lzma.createStream('streamDecoder'), () => undefined);
    case 'zstd':
      return (async function* () {
        let out: Uint8Array[] = [];
        const decoder = new ZstdDecompress((data) => out.push(data.slice()));
        for await (const chunk of chunks) {
          for (let offset = 0; offset < chunk.length; offset += ZSTD_INPUT_SLICE) {
            decoder.push(chunk.subarray(offset, offset + ZSTD_INPUT_SLICE));
            yield* out;
            out = [];
          }
        }
        decoder.push(new Uint8Array(0), true);
        yield* out;
      })();
  }
}

/**
 * Lists the files of a data.tar member while its bytes stream past (nothing is held but
 * the current tar header). Stops reading at the limits, and says so; a member that does
 * not decompress or is no tar gives a note instead of a list, since the package was
 * accepted without reading data.tar before and dpkg is the judge of its payload.
 * The caller skips whatever of the member this did not read.
 */
export async function listDataArchive(chunks: AsyncIterable<Uint8Array>, compression: Compression, limits: Partial<DataListingLimits> = {}): Promise<DebContents> {
  const bounds = { ...DEFAULT_DATA_LISTING_LIMITS, ...limits };
  const paths: string[] = [];
  let total = 0;
  let tarBytes = 0;
  let cut: string | undefined;
  const extractor = extract();
  const feeding = (async () => {
    try {
      for await (const chunk of decompressed(chunks, compression)) {
        tarBytes += chunk.length;
        if (tarBytes > bounds.maxTarBytes) {
          cut = `the list stops after ${bounds.maxTarBytes} bytes of data.tar`;
          extractor.destroy();
          return;
        }
        if (extractor.destroyed) break;
        if (!extractor.write(chunk)) await new Promise<void>((resolve) => {
            const done = () => {
              extractor.off('drain', done);
              extractor.off('close', done);
              resolve();
            };
            extractor.on('drain', done);
            extractor.on('close', done);
          });
      }
      extractor.end(undefined);
    } catch (error) {
      extractor.destroy(error as Error);
    }
  })();
  try {
    for await (const entry of extractor) {
      const { type, name } = entry.header;
      if (type !== 'directory') {
        total += 1;
        if (paths.length < bounds.maxPaths) paths.push(`/${name.replace(/^\.?\/+/, '')}`);
      }
      entry.resume();
    }
  } catch (error) {
    await feeding;
    if (cut) return { paths, total, note: cut };
    return { paths, total, note: `the file list could not be read (${(error as Error).message})` };
  }
  await feeding;
  if (cut) return { paths, total, note: cut };
  if (total > paths.length) return { paths, total, note: `the first ${paths.length} of ${total} files are listed` };
  return { paths, total };
}
