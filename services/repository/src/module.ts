import { defineModule, grpcServerModule } from '@packyard/platform';

export const repositoryModule = defineModule({
  name: 'repository',
  description: 'repositories, their package sets, index building and atomic publication',
  deps: [grpcServerModule],
  init: () => ({ value: undefined }),
});
