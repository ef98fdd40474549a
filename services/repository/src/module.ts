import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const repositoryModule = defineModule({
  name: 'repository',
  description: 'repositories, their package sets, index building and atomic publication',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
