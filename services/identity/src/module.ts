import { defineModule, grpcServerModule, httpServerModule } from '@packyard/platform';

export const identityModule = defineModule({
  name: 'identity',
  description: 'accounts, sign-in (password and OpenID Connect), ID tokens and JWKS, profile and user API keys',
  deps: [grpcServerModule, httpServerModule],
  init: () => ({ value: undefined }),
});
