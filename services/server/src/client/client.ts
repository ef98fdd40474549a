import { commandContext, COMMON_HELP, type ClientCommand, type ClientIo } from './command';
import { ClientError, EXIT, EXIT_CODES_HELP } from './exit-codes';
import { advisoriesCommand } from './commands/advisories.command';
import { loginCommand } from './commands/login.command';
import { lsCommand } from './commands/ls.command';
import { promoteCommand } from './commands/promote.command';
import { pushCommand } from './commands/push.command';
import { rmCommand } from './commands/rm.command';
import { tokensCommand } from './commands/tokens.command';

/** The client side of the `packyard` program: commands a developer or CI job runs against a server. */
export const CLIENT_COMMANDS: ClientCommand[] = [loginCommand, pushCommand, lsCommand, rmCommand, promoteCommand, tokensCommand, advisoriesCommand];

export const isClientCommand = (name: string | undefined) => CLIENT_COMMANDS.some((command) => command.name === name);

/** the client part of `packyard --help` */
export const clientUsage = () => `Client commands (packyard <command> --help for each):
${CLIENT_COMMANDS.map((c) => `  packyard ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

  PACKYARD_URL and PACKYARD_TOKEN (an account token) override what \`packyard login\` stored.

${EXIT_CODES_HELP}`;

/** Runs `packyard <command> ...` and answers its exit code; failures are one line on stderr (JSON on stdout with --json). */
export async function runClient(argv: string[], io: ClientIo): Promise<number> {
  const [name, ...rest] = argv;
  const command = CLIENT_COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`packyard: unknown command "${name}"\n\n${clientUsage()}\n`);
    return EXIT.usage;
  }
  const json = rest.includes('--json');
  try {
    const context = commandContext(command, rest, io);
    if (context.values.help) {
      io.stdout.write(`${command.help}\n\n${COMMON_HELP}\n\n${EXIT_CODES_HELP}\n`);
      return EXIT.ok;
    }
    return (await command.run(context)) ?? EXIT.ok;
  } catch (thrown) {
    // anything else is a defect or an I/O failure of this machine: still one line and a code CI can read
    const error = thrown instanceof ClientError ? thrown : new ClientError(EXIT.server, (thrown as Error).message ?? String(thrown));
    if (json) io.stdout.write(JSON.stringify({ error: error.message, exitCode: error.exitCode, ...(error.status ? { status: error.status } : {}) }) + '\n');
    io.stderr.write(`packyard ${command.name}: ${error.message}\n`);
    return error.exitCode;
  }
}

/** the process's own streams and environment */
export const processIo = (): ClientIo => ({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env });
