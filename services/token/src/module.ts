import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const tokenModule = defineModule({
  name: 'token',
  description: 'repository tokens and account access tokens; validates tokens for the API and delivery',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
