/**
 * The exit codes of the client commands, documented in `packyard --help` and the README so
 * CI can branch on them (retry on 5, fail the build on 2, skip a duplicate on 4…).
 */
export const EXIT = {
  ok: 0,
  /** bad arguments, or input the server refused as invalid (400, 413) */
  usage: 1,
  /** no token, a wrong one, or one without the needed scope (401, 403) */
  auth: 2,
  notFound: 3,
  /** already exists: the same package version is in the repository (409) */
  conflict: 4,
  /** the server failed, could not be reached, or a wait timed out (5xx, 429, network) */
  server: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports in one line (or as JSON) and ends with its exit code. */
export class ClientError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status >= 400 && status < 500 && status !== 429) return EXIT.usage;
  return EXIT.server;
}

export const EXIT_CODES_HELP = `Exit codes:
  0  success
  1  usage error, or input the server refused (400, 413)
  2  authentication: no token, a wrong one, or a missing scope (401, 403)
  3  not found (404): workspace, repository, package or token
  4  conflict (409): the package version is already in the repository
  5  server error, unreachable server, or a --wait that timed out`;
