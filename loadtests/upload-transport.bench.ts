/**
 * How the gateway hands an upload to artifact, measured both ways on the same 100 MiB:
 *   staging:   the gateway writes it into the blob store's staging area (no fsync), artifact
 *              reads it back (the parser's pass) while moving it to its content-addressed
 *              key (one fsync): what Packyard does;
 *   gRPC:      the gateway streams it to artifact over a loopback gRPC client stream in
 *              64 KiB messages, artifact writes it content-addressed (one fsync) as it
 *              arrives (the parser would read those same chunks).
 * Both end with the package durable once, in the same filesystem blob store; the figures
 * leave out what both share (HTTP multipart, parsing, events).
 * Run: npx tsx loadtests/upload-transport.bench.ts   (BENCH_RUNS: default 5)
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, type Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { contentAddressedKey } from '@packyard/platform/blobs/index';
import { FsBlobStore } from '@packyard/platform/blobs/fs-blob-store.adapter';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BYTES = 100 * 1024 * 1024;
const MESSAGE_BYTES = 64 * 1024;

const identity = (bytes: Buffer) => bytes;
const UploadService: grpc.ServiceDefinition = {
  upload: {
    path: '/packyard.bench.Upload/Upload',
    requestStream: true,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function main() {
  const work = await mkdtemp(join(tmpdir(), 'packyard-transport-bench-'));
  const source = join(work, 'upload.bin');
  await writeFile(source, randomBytes(BYTES));
  const blobs = new FsBlobStore(join(work, 'blobs'));

  const server = new grpc.Server({ 'grpc.max_receive_message_length': 4 * MESSAGE_BYTES });
  server.addService(UploadService, {
    upload: (call: grpc.ServerReadableStream<Buffer, Buffer>, answer: grpc.sendUnaryData<Buffer>) => {
      const body = new PassThrough({ highWaterMark: 1024 * 1024 });
      call.pipe(body);
      blobs.putContentAddressed('packages/grpc', body).then(
        (info) => answer(null, Buffer.from(info.key)),
        (error: Error) => answer(error),
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const Client = grpc.makeGenericClientConstructor(UploadService, 'Upload');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    upload(callback: (error: grpc.ServiceError | null, answer?: Buffer) => void): grpc.ClientWritableStream<Buffer>;
  };

  const viaGrpc = () =>
    new Promise<void>((resolve, reject) => {
      const call = client.upload((error) => (error ? reject(error) : resolve()));
      createReadStream(source, { highWaterMark: MESSAGE_BYTES }).pipe(call as unknown as Writable);
    });

  const viaStaging = async () => {
    const staged = await blobs.put(`staging/${Date.now()}`, createReadStream(source, { highWaterMark: MESSAGE_BYTES }), { durable: false });
    const parserPass = (async () => {
      for await (const chunk of await blobs.get(staged.key)) void chunk;
    })();
    await Promise.all([parserPass, blobs.move(staged.key, contentAddressedKey('packages/staged', staged.sha256))]);
  };

  try {
    console.log(`${BYTES / 1024 / 1024} MiB from disk to a durable content-addressed blob, median of ${RUNS} after a warm-up`);
    for (const [name, hand] of [['staging + move (Packyard)', viaStaging], ['gRPC client stream', viaGrpc]] as const) {
      await hand();
      const seconds: number[] = [];
      const cpu: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const [started, startedCpu] = [performance.now(), cpuMs()];
        await hand();
        seconds.push((performance.now() - started) / 1000);
        cpu.push(cpuMs() - startedCpu);
      }
      console.log(`${name.padEnd(28)} ${(BYTES / 1e6 / median(seconds)).toFixed(0).padStart(5)} MB/s   ${median(seconds).toFixed(3)} s   CPU ${median(cpu).toFixed(0)} ms`);
    }
  } finally {
    client.close();
    server.forceShutdown();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
