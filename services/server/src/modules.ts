import { groupModule, resolveStartOrder, type ModuleDefinition } from '@packyard/platform';
import { artifactModule } from '@packyard/artifact';
import { deliveryModule } from '@packyard/delivery';
import { gatewayModule } from '@packyard/gateway';
import { identityModule } from '@packyard/identity';
import { repositoryModule } from '@packyard/repository';
import { signingModule } from '@packyard/signing';
import { tokenModule } from '@packyard/token';
import { workspaceModule } from '@packyard/workspace';

/** The composition root only lists modules; each declares its dependencies beside its code. */
export const SERVICE_MODULES: ModuleDefinition<unknown>[] = [
  gatewayModule,
  identityModule,
  workspaceModule,
  repositoryModule,
  artifactModule,
  tokenModule,
  signingModule,
  deliveryModule,
];

export const allModule = groupModule('all', 'every module in one process (single-node mode)', SERVICE_MODULES);

export const TARGETS: ModuleDefinition<unknown>[] = [allModule, ...SERVICE_MODULES];

/** every module, infrastructure included: the settings `--help` and the README list */
export const ALL_MODULES: ModuleDefinition<unknown>[] = resolveStartOrder(TARGETS);
