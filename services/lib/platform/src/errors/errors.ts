import { Status } from 'nice-grpc-common';

/**
 * One table maps every kind of domain failure to its gRPC status and its HTTP status,
 * so a handler throws `new PackyardError('NOT_FOUND', 'PACKYARD_WORKSPACE_NOT_FOUND', …)`
 * and both transports answer consistently.
 */
export const ERROR_KINDS = {
  INVALID: { grpc: Status.INVALID_ARGUMENT, http: 400 },
  UNAUTHENTICATED: { grpc: Status.UNAUTHENTICATED, http: 401 },
  FORBIDDEN: { grpc: Status.PERMISSION_DENIED, http: 403 },
  NOT_FOUND: { grpc: Status.NOT_FOUND, http: 404 },
  CONFLICT: { grpc: Status.ALREADY_EXISTS, http: 409 },
  TOO_LARGE: { grpc: Status.OUT_OF_RANGE, http: 413 },
  RATE_LIMITED: { grpc: Status.RESOURCE_EXHAUSTED, http: 429 },
  UNAVAILABLE: { grpc: Status.UNAVAILABLE, http: 503 },
  TIMEOUT: { grpc: Status.DEADLINE_EXCEEDED, http: 504 },
  INTERNAL: { grpc: Status.INTERNAL, http: 500 },
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export class PackyardError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** `PACKYARD_<CONTEXT>_<REASON>` */
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'PackyardError';
  }

  get httpStatus(): number {
    return ERROR_KINDS[this.kind].http;
  }

  get grpcStatus(): Status {
    return ERROR_KINDS[this.kind].grpc;
  }
}

export const kindOfGrpcStatus = (status: Status): ErrorKind =>
  (Object.entries(ERROR_KINDS).find(([, v]) => v.grpc === status)?.[0] as ErrorKind | undefined) ?? 'INTERNAL';

export const kindOfHttpStatus = (status: number): ErrorKind =>
  (Object.entries(ERROR_KINDS).find(([, v]) => v.http === status)?.[0] as ErrorKind | undefined) ?? 'INTERNAL';

export const notFound = (code: string, message: string) => new PackyardError('NOT_FOUND', code, message);
export const invalid = (code: string, message: string, details?: Record<string, unknown>) =>
  new PackyardError('INVALID', code, message, details);
export const conflict = (code: string, message: string) => new PackyardError('CONFLICT', code, message);
export const unauthenticated = (message = 'Authentication required') =>
  new PackyardError('UNAUTHENTICATED', 'PACKYARD_AUTH_UNAUTHENTICATED', message);
export const forbidden = (message: string) => new PackyardError('FORBIDDEN', 'PACKYARD_AUTH_FORBIDDEN', message);
