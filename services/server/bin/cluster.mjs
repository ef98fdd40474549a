#!/usr/bin/env node
// `npm run cluster`: the local cluster (services/server/src/cluster), through tsx like the program.
import { register } from 'tsx/esm/api';

register();
await import('../src/cluster/main.ts');
