import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ClientError, EXIT, exitCodeForStatus } from './exit-codes';

export interface Workspace {
  id: string;
  name: string;
  slug: string;
  repositoryCount: number;
}

export interface Repository {
  id: string;
  workspaceId: string;
  name: string;
  kind: 'DEB' | 'RPM';
  codename: string;
  component: string;
  packageCount: number;
}

export interface Package {
  id: string;
  name: string;
  version: string;
  architecture: string;
  filename: string;
  sizeBytes: number;
  downloads: number;
  publishedAt: string;
  distribution: string;
}

/** `<workspace-slug>/<repository-name>` resolved to ids */
export interface RepositoryRef {
  workspace: Workspace;
  repository: Repository;
}

const errorMessage = (status: number, text: string) => {
  try {
    const body = JSON.parse(text) as { message?: string };
    if (body.message) return body.message;
  } catch {
    // not JSON: a proxy's page; the status says enough
  }
  return `the server answered ${status}`;
};

/** `/api/v1` as an account token sees it; every failure becomes a ClientError with its exit code. */
export class ApiClient {
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new ClientError(EXIT.server, `cannot reach ${this.url}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw new ClientError(exitCodeForStatus(response.status), errorMessage(response.status, text), response.status);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async workspace(slug: string): Promise<Workspace> {
    const { workspaces } = await this.call<{ workspaces: Workspace[] }>('GET', '/workspaces');
    const found = workspaces.find((w) => w.slug === slug);
    if (!found) throw new ClientError(EXIT.notFound, `no workspace "${slug}" (yours: ${workspaces.map((w) => w.slug).join(', ') || 'none'})`);
    return found;
  }

  async repository(ref: string): Promise<RepositoryRef> {
    const [slug, name, ...rest] = ref.split('/');
    if (!slug || !name || rest.length) throw new ClientError(EXIT.usage, `"${ref}" is not <workspace>/<repository>`);
    const workspace = await this.workspace(slug);
    const repositories = await this.call<Repository[]>('GET', `/workspaces/${workspace.id}/repos`);
    const repository = repositories.find((r) => r.name === name);
    if (!repository) throw new ClientError(EXIT.notFound, `no repository "${name}" in workspace "${slug}"`);
    return { workspace, repository };
  }

  /** every package of a repository whose file name contains `q` (the API pages by 100) */
  async packages({ workspace, repository }: RepositoryRef, q = ''): Promise<Package[]> {
    const all: Package[] = [];
    for (let page = 0; ; page++) {
      const { items, total } = await this.call<{ items: Package[]; total: number }>(
        'GET',
        `/workspaces/${workspace.id}/repos/${repository.id}/packages?${new URLSearchParams({ q, page: String(page), size: '100' })}`,
      );
      all.push(...items);
      if (!items.length || all.length >= total) return all;
    }
  }

  /**
   * Streams the files as multipart/form-data (distribution first, then a `file` part each:
   * one package, or a source package's .dsc and the files it lists) with a known length,
   * reporting bytes as they leave, and answers the created package. `published` is false
   * when the server answered 202: it accepted the package but had not published it in time.
   */
  async upload(ref: RepositoryRef, files: string | readonly string[], distribution: string, onProgress: (sent: number, total: number) => void): Promise<{ package: Package; published: boolean }> {
    const paths = [files].flat();
    let size = 0;
    for (const file of paths) {
      const fileSize = (await stat(file).catch(() => undefined))?.size;
      if (fileSize === undefined) throw new ClientError(EXIT.usage, `no such file: ${file}`);
      size += fileSize;
    }
    const boundary = `packyard-${randomUUID()}`;
    const names = paths.map((file) => basename(file).replace(/["\r\n]/g, '_'));
    const filename = names[0];
    const field = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="distribution"\r\n\r\n${distribution}\r\n`);
    const partHeads = names.map((name) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    const partEnd = Buffer.from('\r\n');
    const tail = Buffer.from(`--${boundary}--\r\n`);
    const length = field.length + partHeads.reduce((sum, head) => sum + head.length + partEnd.length, 0) + size + tail.length;
    const target = new URL(`${this.url}/api/v1/workspaces/${ref.workspace.id}/repos/${ref.repository.id}/upload?wait=published`);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = send(target, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length },
      });
      request.on('response', (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: body }));
        response.on('error', reject);
      });
      request.on('error', reject);
      request.write(field);
      let sent = 0;
      onProgress(0, size);
      const sendFile = (index: number) => {
        if (index === paths.length) return request.end(tail);
        request.write(partHeads[index]);
        const stream = createReadStream(paths[index]);
        stream.on('data', (chunk) => {
          sent += chunk.length;
          onProgress(sent, size);
          if (!request.write(chunk)) {
            stream.pause();
            request.once('drain', () => stream.resume());
          }
        });
        stream.on('error', (error) => request.destroy(error));
        stream.on('end', () => {
          request.write(partEnd);
          sendFile(index + 1);
        });
      };
      sendFile(0);
    }).catch((error: Error) => {
      throw new ClientError(EXIT.server, `upload of ${filename} to ${this.url} failed: ${error.message}`);
    });
    if (status !== 201 && status !== 202) throw new ClientError(exitCodeForStatus(status), `${filename}: ${errorMessage(status, text)}`, status);
    return { package: JSON.parse(text) as Package, published: status === 201 };
  }
}
