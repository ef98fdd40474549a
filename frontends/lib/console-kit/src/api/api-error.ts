/** The error object of the console spec §3/§8: every failed call rejects with one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const FALLBACK_MESSAGE = 'An error occurred';

/** Message precedence: the body's message, else the status text, else a generic text. */
export function apiErrorFrom(status: number, statusText: string, body: unknown): ApiError {
  const fields = body && typeof body === 'object' ? (body as { message?: unknown; details?: unknown }) : {};
  const bodyMessage = typeof fields.message === 'string' && fields.message ? fields.message : undefined;
  return new ApiError(status, bodyMessage ?? (statusText || FALLBACK_MESSAGE), fields.details);
}

/** The text to show for any thrown value, with a screen-specific fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof Error && error.message ? error.message : fallback;
}
