import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const signingModule = defineModule({
  name: 'signing',
  description: 'one OpenPGP key per repository; signs Release/InRelease and repomd.xml',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
