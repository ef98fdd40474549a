#!/usr/bin/env node
// The one entrypoint: `packyard --target=all` (default) or `--target=gateway,delivery`.
// Services are TypeScript run through tsx's loader, so the source is the program.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
