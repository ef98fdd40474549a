import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import type { RegisterModule, RemoteModule } from '@packyard/console-kit';

/**
 * Every remote of the console, in one place. `paths` are the screens a remote owns, so
 * the shell can show an error panel there when the remote cannot be loaded.
 */
const REMOTES: ReadonlyArray<{ name: string; paths: string[] }> = [
  { name: 'workspaces', paths: ['/', '/dashboard', '/workspaces', '/workspaces/:workspaceId/repos'] },
  { name: 'repository', paths: ['/workspaces/:workspaceId/repos/:id/*'] },
  { name: 'tokens', paths: ['/tokens'] },
  { name: 'settings', paths: ['/settings'] },
];

/** The single-node server serves each remote's build at /remotes/<name>/. */
const manifestUrl = (name: string) => `/remotes/${name}/mf-manifest.json`;

export const consoleRemotes: RemoteModule[] = REMOTES.map(({ name, paths }) => ({
  name,
  paths,
  async load() {
    // force: a retry after a failure must fetch the manifest again rather than reuse the failed entry.
    registerRemotes([{ name, entry: manifestUrl(name) }], { force: true });
    const exposed = await loadRemote<{ register: RegisterModule }>(`${name}/register`);
    if (!exposed?.register) throw new Error(`Remote ${name} exposes no register()`);
    return exposed.register;
  },
}));
