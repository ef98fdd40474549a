import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const deliveryModule = defineModule({
  name: 'delivery',
  description: 'the apt/yum edge: repository files over HTTP with token auth, install snippets and scripts',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
