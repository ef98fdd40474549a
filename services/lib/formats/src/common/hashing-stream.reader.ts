import { ArtifactFormatError, type ArtifactFormatErrorCode, ArtifactFormatErrorCode as Code } from './artifact-format.error';
import type { HexDigests, StreamDigester } from './stream-digester';

/**
 * Pulls exact byte counts out of a stream while every byte that passes (read or skipped)
 * feeds the whole-file digests, so a 100 MiB payload is hashed without ever being held.
 */
export class HashingStreamReader {
  private readonly source: AsyncIterator<Uint8Array>;
  private pending: Buffer = Buffer.alloc(0);
  private ended = false;
  private received = 0;

  constructor(
    input: AsyncIterable<Uint8Array>,
    private readonly digester: StreamDigester,
    private readonly maxBytes: number,
    private readonly truncatedCode: ArtifactFormatErrorCode,
  ) {
    this.source = input[Symbol.asyncIterator]();
  }

  /** Bytes consumed by the parser so far (its position in the file). */
  get position(): number {
    return this.received - this.pending.length;
  }

  /** Exactly `count` bytes, or a truncation error naming `what`. */
  async read(count: number, what: string): Promise<Buffer> {
    if (this.pending.length < count) {
      // Gather first and join once: a 10 MiB rpm header arrives in many 64 KiB chunks.
      const parts = [this.pending];
      let available = this.pending.length;
      while (available < count) {
        const chunk = await this.pull();
        if (!chunk) throw new ArtifactFormatError(this.truncatedCode, `file ends inside the ${what}`);
        parts.push(chunk);
        available += chunk.length;
      }
      this.pending = Buffer.concat(parts, available);
    }
    const bytes = this.pending.subarray(0, count);
    this.pending = this.pending.subarray(count);
    return bytes;
  }

  async skip(count: number, what: string): Promise<void> {
    for await (const _skipped of this.chunks(count, what));
  }

  /**
   * The next `count` bytes as they arrive (each already hashed), for a consumer that reads
   * a member as a stream. A consumer that stops early has consumed what it was given:
   * `skip` the rest.
   */
  async *chunks(count: number, what: string): AsyncGenerator<Buffer> {
    let left = count;
    while (left > 0) {
      if (this.pending.length === 0) {
        const chunk = await this.pull();
        if (!chunk) throw new ArtifactFormatError(this.truncatedCode, `file ends inside the ${what}`);
        this.pending = chunk;
      }
      const taken = Math.min(left, this.pending.length);
      const part = this.pending.subarray(0, taken);
      this.pending = this.pending.subarray(taken);
      left -= taken;
      yield part;
    }
  }

  /** True when no byte is left; pulls at most one chunk to find out. */
  async atEnd(): Promise<boolean> {
    if (this.pending.length > 0) return false;
    const chunk = await this.pull();
    if (chunk) this.pending = chunk;
    return !chunk;
  }

  /** Consumes the rest of the stream (still hashing and counting). */
  async drain(): Promise<void> {
    this.pending = Buffer.alloc(0);
    while (await this.pull());
  }

  /** Size and hex digests of everything consumed; call after `drain`. */
  async digests(): Promise<{ size: number } & HexDigests> {
    return { size: this.received, ...(await this.digester.digest()) };
  }

  /** Stops reading early (after a refusal): ends the source stream instead of leaving it paused. */
  async abandon(): Promise<void> {
    this.ended = true;
    this.digester.abandon();
    await this.source.return?.();
  }

  /** The next chunk, already counted and hashed; undefined at the end of the stream. */
  private async pull(): Promise<Buffer | undefined> {
    if (this.ended) return undefined;
    const next = await this.source.next();
    if (next.done) {
      this.ended = true;
      return undefined;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    this.received += chunk.length;
    if (this.received > this.maxBytes) {
      throw new ArtifactFormatError(Code.tooLarge, `package is larger than ${this.maxBytes} bytes`);
    }
    await this.digester.update(chunk);
    return chunk;
  }
}
