import { bootstrapConsole } from '@packyard/console-kit';
import { registerShell } from './register-shell';
import { consoleRemotes } from './remotes';

void bootstrapConsole({ modules: [registerShell], remotes: consoleRemotes });
