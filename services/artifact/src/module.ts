import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const artifactModule = defineModule({
  name: 'artifact',
  description: 'package uploads: checks, parses and stores .deb and .rpm files content-addressed',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
