import { defineModule, grpcServerModule } from '@packyard/platform';

export const workspaceModule = defineModule({
  name: 'workspace',
  description: 'workspaces, their usage and the usage summary',
  deps: [grpcServerModule],
  init: () => ({ value: undefined }),
});
