import { defineModule, grpcServerModule } from '@packyard/platform';

export const identityModule = defineModule({
  name: 'identity',
  description: 'accounts, sign-in (password and OpenID Connect), ID tokens and JWKS, profile and user API keys',
  deps: [grpcServerModule],
  init: () => ({ value: undefined }),
});
