import { bootstrapConsole } from '@packyard/console-kit';
import { registerShell } from '@packyard/shell/register-shell';
import { register } from './register';

void bootstrapConsole({ modules: [registerShell, register] });
