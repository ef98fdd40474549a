import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerUser, type ApiSession } from '@packyard/testing/api-session';
import { startPackyard, type RunningPackyard } from '@packyard/testing';
import { craftDeb, validControlText } from '@packyard/testing/packages/deb-crafting';

// short timeouts so the test takes seconds; the defaults are 10 s, 30 s and 30 s
const HEADERS_S = 2;
const REQUEST_S = 2;
const IDLE_S = 3;

let packyard: RunningPackyard;
let session: ApiSession;
let uploadPath: string;

const openDescriptors = () => readdirSync(`/proc/${packyard.child.pid}/fd`).length;
const temporaryFiles = () => {
  try {
    return readdirSync(join(packyard.dataDir, 'blobs', '.tmp'));
  } catch {
    return [];
  }
};

/** a connection that resolves `closed` with the milliseconds it stayed open */
function open(): Promise<{ socket: Socket; closed: Promise<{ ms: number; answer: string }> }> {
  return new Promise((resolve, reject) => {
    const opened = Date.now();
    const socket = connect(packyard.port, '127.0.0.1', () => {
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('error', () => undefined);
      resolve({ socket, closed: new Promise((done) => socket.on('close', () => done({ ms: Date.now() - opened, answer }))) });
    });
    socket.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  packyard = await startPackyard({ env: { HTTP_HEADERS_TIMEOUT_S: String(HEADERS_S), HTTP_REQUEST_TIMEOUT_S: String(REQUEST_S), HTTP_IDLE_TIMEOUT_S: String(IDLE_S) } });
  session = await registerUser(packyard);
  const workspace = (await session.call('POST', '/workspaces', { name: 'Slow', slug: `slow-${Date.now()}` })).body;
  const repo = (await session.call('POST', `/workspaces/${workspace.id}/repos`, { name: 'apt', kind: 'DEB' })).body;
  uploadPath = `/api/v1/workspaces/${workspace.id}/repos/${repo.id}/upload`;
});

afterAll(async () => {
  await packyard?.dispose();
});

describe('slow clients', () => {
  it('300 connections trickling their headers are closed after the headers timeout', async () => {
    const before = openDescriptors();
    const connections = await Promise.all(Array.from({ length: 300 }, () => open()));
    const request = 'GET /api/actuator/health HTTP/1.1\r\nhost: x\r\nx-slow: ';
    let sent = 0;
    const trickle = setInterval(() => {
      for (const { socket } of connections) if (!socket.destroyed) socket.write(request[sent % request.length]);
      sent++;
    }, 500);
    try {
      const lifetimes = (await Promise.all(connections.map(({ closed }) => closed))).map(({ ms }) => ms);
      const longest = Math.max(...lifetimes);
      console.log(`300 slow-header connections: closed after ${Math.min(...lifetimes)}–${longest} ms (headers timeout ${HEADERS_S} s)`);
      expect(longest).toBeLessThan((HEADERS_S + 2) * 1000);
    } finally {
      clearInterval(trickle);
    }
    await expect.poll(openDescriptors, { timeout: 2000 }).toBeLessThanOrEqual(before + 2);
  });

  it('closes a request whose body trickles past the request timeout', async () => {
    const { socket, closed } = await open();
    socket.write(`POST /api/v1/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
    const trickle = setInterval(() => socket.destroyed || socket.write(' '), 500);
    try {
      const { ms, answer } = await closed;
      console.log(`a trickling JSON body: cut after ${ms} ms (request timeout ${REQUEST_S} s)`);
      expect(ms).toBeLessThan((REQUEST_S + 2) * 1000);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(trickle);
    }
  });

  it('takes an upload slower than the request and idle timeouts as long as it keeps moving', async () => {
    const bytes = Buffer.from(await craftDeb({ control: validControlText('slow-link') }));
    const boundary = 'slow-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="distribution"\r\n\r\nubuntu/noble\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="slow-link.deb"\r\n\r\n`),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const { socket, closed } = await open();
    socket.write(
      `POST ${uploadPath}?wait=published HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${session.bearer}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    );
    const pieces = 8;
    const started = Date.now();
    for (let piece = 0; piece < pieces; piece++) {
      socket.write(body.subarray(Math.floor((piece * body.length) / pieces), Math.floor(((piece + 1) * body.length) / pieces)));
      if (piece < pieces - 1) await sleep(1000);
    }
    const { answer } = await closed;
    console.log(`an upload sent over ${Date.now() - started} ms in ${pieces} pieces a second apart: ${answer.split('\r\n')[0]}`);
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
  });

  it('cuts a stalled upload after the idle timeout and frees what it held', async () => {
    const { socket, closed } = await open();
    const boundary = 'stall-boundary';
    socket.write(
      `POST ${uploadPath} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${session.bearer}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: 1000000\r\n\r\n` +
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="stalled.deb"\r\n\r\n${'x'.repeat(64 * 1024)}`,
    );
    await expect.poll(() => temporaryFiles().length, { timeout: 5000 }).toBeGreaterThan(0);
    const { ms } = await closed;
    console.log(`a stalled upload: cut after ${ms} ms (idle timeout ${IDLE_S} s)`);
    expect(ms).toBeGreaterThanOrEqual(IDLE_S * 1000 - 100);
    expect(ms).toBeLessThan((IDLE_S + 2) * 1000);
    await expect.poll(temporaryFiles, { timeout: 1000 }).toEqual([]);
  });
});
