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

/** delivery starts first: it forks the edge workers, which load their code while the other modules initialise */
export const allModule = groupModule('all', 'every module in one process (single-node mode)', [deliveryModule, ...SERVICE_MODULES.filter((module) => module !== deliveryModule)]);

export const TARGETS: ModuleDefinition<unknown>[] = [allModule, ...SERVICE_MODULES];

/** every module, infrastructure included, in the order of the list above: the settings `--help` and the README list */
export const ALL_MODULES: ModuleDefinition<unknown>[] = resolveStartOrder(SERVICE_MODULES);
