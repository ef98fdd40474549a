import { ApiError, apiErrorFrom } from './api-error';

export const API_BASE_PATH = '/api';

type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  /** Sign-in calls answer 401 for a wrong password; that must not bounce to /login. */
  redirectOnUnauthorized?: boolean;
}

export interface UploadOptions {
  fields?: Record<string, string>;
  onProgress?: (percent: number) => void;
}

/** What an XMLHttpRequest-like object must offer; tests pass a fake. */
export type XhrFactory = () => XMLHttpRequest;

export interface ApiClientDependencies {
  fetch?: typeof fetch;
  createXhr?: XhrFactory;
  /** The current ID token; may refresh first. Undefined when signed out. */
  getIdToken: () => Promise<string | undefined>;
  /** Called on any 401 from the API (spec §4: the browser goes to /login). */
  onUnauthorized: () => void;
  baseUrl?: string;
}

export interface ApiClient {
  request<T>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  put<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  delete<T>(path: string, options?: RequestOptions): Promise<T>;
  /** Single-file multipart upload (field `file`) with progress, for package uploads. */
  uploadFile<T>(path: string, file: Blob, options?: UploadOptions): Promise<T>;
  /** PUT a file straight to a pre-signed storage URL. */
  putToPresignedUrl(url: string, file: Blob, options?: { headers?: Record<string, string>; onProgress?: (percent: number) => void }): Promise<void>;
}

function withQuery(url: string, query: RequestOptions['query']): string {
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${url}?${text}` : url;
}

function parseJson(text: string): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

export function createApiClient(deps: ApiClientDependencies): ApiClient {
  const baseUrl = deps.baseUrl ?? API_BASE_PATH;
  const doFetch = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const createXhr = deps.createXhr ?? (() => new XMLHttpRequest());

  async function authorizationHeader(): Promise<Record<string, string>> {
    try {
      const token = await deps.getIdToken();
      return token ? { Authorization: `Bearer ${token}` } : {};
    } catch (error) {
      // Spec §8: a token retrieval failure is logged and the call goes out without one.
      console.error('Could not get the ID token', error);
      return {};
    }
  }

  function failed(status: number, statusText: string, body: unknown, redirect: boolean): ApiError {
    if (status === 401 && redirect) deps.onUnauthorized();
    return apiErrorFrom(status, statusText, body);
  }

  async function request<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    const headers = { 'Content-Type': 'application/json', ...(await authorizationHeader()) };
    const response = await doFetch(withQuery(baseUrl + path, options.query), {
      method,
      headers,
      credentials: 'omit',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 204) return {} as T;
    const payload = parseJson(await response.text());
    if (!response.ok) throw failed(response.status, response.statusText, payload, options.redirectOnUnauthorized ?? true);
    return payload as T;
  }

  async function uploadFile<T>(path: string, file: Blob, options: UploadOptions = {}): Promise<T> {
    const headers = await authorizationHeader();
    const form = new FormData();
    // Fields first: the server reads the distribution before it streams the file.
    for (const [key, value] of Object.entries(options.fields ?? {})) form.append(key, value);
    form.append('file', file, file instanceof File ? file.name : 'upload');
    return new Promise<T>((resolve, reject) => {
      const xhr = createXhr();
      xhr.open('POST', baseUrl + path);
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) options.onProgress?.(Math.round((event.loaded / event.total) * 100));
      };
      xhr.onload = () => {
        const payload = parseJson(xhr.responseText);
        if (xhr.status >= 200 && xhr.status < 300) resolve((xhr.status === 204 ? {} : payload) as T);
        else reject(failed(xhr.status, xhr.statusText, payload, true));
      };
      xhr.onerror = () => reject(new ApiError(0, 'Network error'));
      xhr.send(form);
    });
  }

  function putToPresignedUrl(
    url: string,
    file: Blob,
    options: { headers?: Record<string, string>; onProgress?: (percent: number) => void } = {},
  ): Promise<void> {
    const headers = { ...options.headers };
    const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
    if (!hasContentType) headers['Content-Type'] = file.type || 'application/octet-stream';
    return new Promise((resolve, reject) => {
      const xhr = createXhr();
      xhr.open('PUT', url);
      for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => {
        if (event.lengthComputable) options.onProgress?.(Math.round((event.loaded / event.total) * 100));
      };
      xhr.onload = () => {
        if (xhr.status >= 200 && xhr.status < 300) resolve();
        else reject(new ApiError(xhr.status, `Upload failed: ${xhr.statusText} (${xhr.status})`));
      };
      xhr.onerror = () => reject(new ApiError(0, 'Network error during upload'));
      xhr.send(file);
    });
  }

  return {
    request,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body ?? {}, options),
    put: (path, body, options) => request('PUT', path, body ?? {}, options),
    // An empty object rather than no body: servers may refuse an empty body labelled JSON.
    delete: (path, options) => request('DELETE', path, {}, options),
    uploadFile,
    putToPresignedUrl,
  };
}
