import type { FastifyPluginAsync } from 'fastify';
import type { GatewayOptions } from '../app';
import { auditRoutes } from './audit.routes';
import { authRoutes, wellKnownRoutes } from './auth.routes';
import { installScriptsRoutes } from './install-scripts.routes';
import { keysRoutes } from './keys.routes';
import { packagesRoutes } from './packages.routes';
import { repositoriesRoutes } from './repositories.routes';
import { retentionRoutes } from './retention.routes';
import { snippetsRoutes } from './snippets.routes';
import { tokensRoutes } from './tokens.routes';
import { uploadRoutes } from './upload.routes';
import { usageRoutes } from './usage.routes';
import { webhooksRoutes } from './webhooks.routes';
import { userRoutes } from './user.routes';
import { workspacesRoutes } from './workspaces.routes';

/** Routes under `/api/v1`, behind bearer auth. */
export const API_ROUTES: FastifyPluginAsync<GatewayOptions>[] = [
  workspacesRoutes,
  repositoriesRoutes,
  usageRoutes,
  tokensRoutes,
  userRoutes,
  snippetsRoutes,
  keysRoutes,
  packagesRoutes,
  uploadRoutes,
  retentionRoutes,
  auditRoutes,
  webhooksRoutes,
];

/** Routes under `/api` that need no bearer token (sign-in, install scripts). */
export const PUBLIC_API_ROUTES: FastifyPluginAsync<GatewayOptions>[] = [authRoutes, installScriptsRoutes];

/** Routes at the root of the origin, outside `/api` (`/.well-known/...`). */
export const ROOT_ROUTES: FastifyPluginAsync<GatewayOptions>[] = [wellKnownRoutes];
