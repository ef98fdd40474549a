import { Worker } from 'node:worker_threads';
import { inThreadDigester, type DigestAlgorithm, type HexDigests, type StreamDigester, type StreamDigesterFactory } from '@packyard/formats';

/**
 * A .deb's md5, sha1, sha256 and sha512 cost ~0.3 s of CPU per 100 MiB, the longest part
 * of claiming an upload. Split over two threads they take half that: md5 and sha1 (the
 * slower half here) in a worker, sha256 and sha512 on the calling thread.
 */
const IN_WORKER: readonly DigestAlgorithm[] = ['md5', 'sha1'];

// evaluated source: found the same way under tsx, vitest and the esbuild bundle
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (message) => {
  const hashes = jobs.get(message.id);
  if (message.algorithms) jobs.set(message.id, message.algorithms.map((algorithm) => [algorithm, createHash(algorithm)]));
  else if (message.chunk) {
    for (const [, hash] of hashes) hash.update(message.chunk);
    parentPort.postMessage({ id: message.id, hashed: message.chunk.byteLength });
  } else if (message.end) {
    jobs.delete(message.id);
    parentPort.postMessage({ id: message.id, digests: Object.fromEntries(hashes.map(([algorithm, hash]) => [algorithm, hash.digest('hex')])) });
  } else if (message.abandon) jobs.delete(message.id);
});
`;

/** bytes handed to the worker and not hashed yet before the reader waits */
const MAX_BYTES_IN_FLIGHT = 8 * 1024 * 1024;

interface Job {
  inFlight: number;
  resume?: () => void;
  finish?: { resolve: (digests: HexDigests) => void; reject: (error: Error) => void };
  failed?: Error;
}

type WorkerAnswer = { id: number; hashed: number } | { id: number; digests: HexDigests };

export class WorkerDigesters {
  private worker: Worker | undefined;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;

  /** the parsers' digester: part of the algorithms in the worker, the rest here */
  readonly digester: StreamDigesterFactory = (algorithms) => {
    const elsewhere = algorithms.filter((algorithm) => IN_WORKER.includes(algorithm));
    if (elsewhere.length === 0) return inThreadDigester(algorithms);
    const here = inThreadDigester(algorithms.filter((algorithm) => !IN_WORKER.includes(algorithm)));
    const there = this.inWorker(elsewhere);
    return {
      update(chunk) {
        const waiting = there.update(chunk);
        here.update(chunk);
        return waiting;
      },
      digest: async () => ({ ...(await here.digest()), ...(await there.digest()) }),
      abandon: () => there.abandon(),
    };
  };

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** every algorithm in the worker thread */
  inWorker(algorithms: readonly DigestAlgorithm[]): StreamDigester {
    const worker = this.running();
    const id = this.nextId++;
    const job: Job = { inFlight: 0 };
    this.jobs.set(id, job);
    worker.postMessage({ id, algorithms });
    return {
      update: (chunk) => {
        if (job.failed) throw job.failed;
        // a copy of just these bytes, moved rather than cloned: a chunk is often a view
        // into a larger buffer that structured cloning would copy whole
        const bytes = new Uint8Array(chunk);
        job.inFlight += bytes.byteLength;
        // (moving it detaches it: its length reads 0 afterwards)
        worker.postMessage({ id, chunk: bytes }, [bytes.buffer]);
        if (job.inFlight <= MAX_BYTES_IN_FLIGHT) return;
        return new Promise<void>((resolve) => {
          job.resume = resolve;
        }).then(() => {
          if (job.failed) throw job.failed;
        });
      },
      digest: () => {
        if (job.failed) return Promise.reject(job.failed);
        return new Promise<HexDigests>((resolve, reject) => {
          job.finish = { resolve, reject };
          worker.postMessage({ id, end: true });
        });
      },
      abandon: () => {
        if (!this.jobs.delete(id)) return;
        worker.postMessage({ id, abandon: true });
      },
    };
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    // an idle worker must not keep the process alive
    worker.unref();
    worker.on('message', (answer: WorkerAnswer) => this.answered(answer));
    worker.on('error', (error) => this.fail(worker, error));
    worker.on('exit', (code) => this.fail(worker, new Error(`digest worker exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private fail(worker: Worker, error: Error) {
    if (this.worker === worker) this.worker = undefined;
    for (const job of this.jobs.values()) {
      job.failed = error;
      job.resume?.();
      job.finish?.reject(error);
    }
    this.jobs.clear();
  }

  private answered(answer: WorkerAnswer) {
    const job = this.jobs.get(answer.id);
    if (!job) return;
    if ('digests' in answer) {
      this.jobs.delete(answer.id);
      job.finish?.resolve(answer.digests);
      return;
    }
    job.inFlight -= answer.hashed;
    if (job.resume && job.inFlight <= MAX_BYTES_IN_FLIGHT / 2) {
      job.resume();
      job.resume = undefined;
    }
  }
}
