import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiClient } from './api-client';
import { resolveCredentials } from './credentials';
import { ClientError, EXIT, type ExitCode } from './exit-codes';
import type { ProgressOutput } from './progress';

/** What a command may touch: its streams and environment are passed in, so tests can run it in-process. */
export interface ClientIo {
  stdout: ProgressOutput;
  stderr: ProgressOutput;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** options every client command takes */
export const COMMON_OPTIONS = {
  url: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies Options;

export const COMMON_HELP = `Common options:
  --url URL      the Packyard server (default: PACKYARD_URL, else the one \`packyard login\` stored)
  --json         print the result as JSON on stdout (errors as {"error","exitCode","status"})
  -h, --help     this text

The account token comes from PACKYARD_TOKEN, else from \`packyard login\`.`;

export interface ClientCommand {
  name: string;
  summary: string;
  help: string;
  options: Options;
  run(context: CommandContext): Promise<ExitCode | void>;
}

export interface CommandContext {
  io: ClientIo;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
  /** the API with the token and URL from flags, environment or the stored login */
  api(): Promise<ApiClient>;
  /** prints `human` normally and `data` as JSON with --json */
  print(data: unknown, human: string): void;
}

/** parses a command's arguments (unknown options are a usage error) and builds its context */
export function commandContext(command: ClientCommand, argv: string[], io: ClientIo): CommandContext {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...command.options, ...COMMON_OPTIONS }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ClientError(EXIT.usage, `${(error as Error).message.split('\n')[0]} (see packyard ${command.name} --help)`);
  }
  const values = parsed.values as CommandContext['values'];
  return {
    io,
    values,
    positionals: parsed.positionals,
    api: async () => {
      const { url, token } = await resolveCredentials(io.env, { url: values.url as string | undefined });
      return new ApiClient(url, token);
    },
    print: (data, human) => io.stdout.write(values.json ? JSON.stringify(data, null, 2) + '\n' : human.endsWith('\n') || !human ? human : human + '\n'),
  };
}

/** a usage error naming the command's help */
export const usageError = (command: string, message: string) => new ClientError(EXIT.usage, `${message} (see packyard ${command} --help)`);

/** Aligned columns for human output. */
export function table(header: string[], rows: string[][]): string {
  if (!rows.length) return '';
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  return [header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n') + '\n';
}
