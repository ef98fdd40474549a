import { hostname } from 'node:os';
import { ApiClient } from '../api-client';
import { storeCredentials } from '../credentials';
import { ClientError, EXIT, exitCodeForStatus } from '../exit-codes';
import { usageError, type ClientCommand, type ClientIo } from '../command';

/** One line from stdin; on a terminal it is prompted for and not echoed (a secret). */
async function readSecretLine(io: ClientIo, prompt: string): Promise<string> {
  const { stdin } = io;
  const hidden = Boolean(stdin.isTTY && stdin.setRawMode);
  if (hidden) {
    io.stderr.write(prompt);
    stdin.setRawMode!(true);
  }
  try {
    let text = '';
    for await (const chunk of stdin) {
      text += chunk.toString();
      // Ctrl-C in raw mode arrives as a byte, not a signal
      if (hidden && text.includes('\u0003')) throw new ClientError(EXIT.usage, 'cancelled');
      const end = text.search(/[\r\n]/);
      if (end >= 0) return text.slice(0, end).trim();
    }
    return text.trim();
  } finally {
    if (hidden) {
      stdin.setRawMode!(false);
      io.stderr.write('\n');
    }
    (stdin as NodeJS.ReadStream).pause?.();
  }
}

async function signIn(url: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }).catch(
    (error: Error) => {
      throw new ClientError(EXIT.server, `cannot reach ${url}: ${error.message}`);
    },
  );
  const body = (await response.json().catch(() => ({}))) as { idToken?: string; message?: string };
  if (!response.ok || !body.idToken) throw new ClientError(exitCodeForStatus(response.status), body.message ?? `sign-in answered ${response.status}`, response.status);
  return body.idToken;
}

export const loginCommand: ClientCommand = {
  name: 'login',
  summary: 'store an account token for the other commands',
  options: { email: { type: 'string' }, 'token-stdin': { type: 'boolean', default: false }, scopes: { type: 'string' } },
  help: `Usage: packyard login --url URL [--token-stdin | --email EMAIL [--scopes LIST]]

Stores the server and an account token in $XDG_CONFIG_HOME/packyard/credentials.json
(~/.config/packyard/ when XDG_CONFIG_HOME is unset), readable by you only (mode 0600).
PACKYARD_TOKEN and PACKYARD_URL, when set, take precedence over it.

  --token-stdin    read an existing account token (from the console's Tokens page) from stdin
  --email EMAIL    sign in with your password (prompted, or the first line of stdin) and
                   create an account token named after this machine
  --scopes LIST    scopes of that new token (default read,publish,admin)

Without either, a terminal prompts for an account token.`,
  async run({ io, values, api: _api, print }) {
    const url = ((values.url as string | undefined) || io.env.PACKYARD_URL || '').replace(/\/+$/, '');
    if (!url) throw usageError('login', 'login needs --url (or PACKYARD_URL)');
    let token: string;
    if (values.email) {
      const password = await readSecretLine(io, `Password for ${values.email}: `);
      const idToken = await signIn(url, values.email as string, password);
      const scopes = ((values.scopes as string | undefined) ?? 'read,publish,admin').split(',').map((s) => s.trim()).filter(Boolean);
      const created = await new ApiClient(url, idToken).call<{ token: string }>('POST', '/tokens', { name: `packyard CLI on ${hostname()}`, scopes });
      token = created.token;
    } else if (values['token-stdin'] || io.stdin.isTTY) {
      token = await readSecretLine(io, 'Account token: ');
    } else {
      throw usageError('login', 'pass --token-stdin or --email');
    }
    if (!token) throw usageError('login', 'the token is empty');
    // proves the token before keeping it: a typo should fail here, not in the next CI step
    const { workspaces } = await new ApiClient(url, token).call<{ workspaces: unknown[] }>('GET', '/workspaces');
    const file = await storeCredentials(io.env, { url, token });
    print({ url, credentialsFile: file, workspaces: workspaces.length }, `signed in to ${url}; token stored in ${file}`);
  },
};
