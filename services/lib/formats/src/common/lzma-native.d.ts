// lzma-native's own types are not published with it (@types/lzma-native describes v4 and
// types `check` as a name, not liblzma's number); this is the part the formats use.
declare module 'lzma-native' {
  import type { Transform } from 'node:stream';

  interface Filter {
    id: string;
    options?: { preset?: number };
  }
  interface StreamOptions {
    /** code on the calling thread (small slices: the caller bounds each step) */
    synchronous?: boolean;
    memlimit?: number;
    check?: number;
    filters?: Filter[];
  }
  /** xz: `streamEncoder` (with `filters`), `streamDecoder`; liblzma's coders by name */
  export function createStream(coder: 'streamEncoder' | 'streamDecoder', options?: StreamOptions): Transform;
  export const FILTER_LZMA2: string;
  export const CHECK_CRC64: number;
  const lzma: { createStream: typeof createStream; FILTER_LZMA2: string; CHECK_CRC64: number };
  export default lzma;
}
