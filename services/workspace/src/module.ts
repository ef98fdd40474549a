import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const workspaceModule = defineModule({
  name: 'workspace',
  description: 'workspaces, their usage and the usage summary',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
