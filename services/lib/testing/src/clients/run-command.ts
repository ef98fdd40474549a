import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  cwd?: string;
}

/** Runs a program to completion and captures its output; never throws on a non-zero exit. */
export function runCommand(program: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      }),
    );
    // a program that exits without reading its input is judged by its exit code
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Like runCommand, but a non-zero exit is an error carrying the program's stderr. */
export async function runChecked(program: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  const result = await runCommand(program, args, options);
  if (result.code !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited ${result.code}\n${result.stderr || result.stdout}`);
  }
  return result;
}
