import type { FastifyPluginAsync } from 'fastify';
import type { GatewayOptions } from '../app';

/** Routes under `/api/v1`, behind bearer auth. */
export const API_ROUTES: FastifyPluginAsync<GatewayOptions>[] = [];

/** Routes under `/api` that need no bearer token (sign-in, install scripts). */
export const PUBLIC_API_ROUTES: FastifyPluginAsync<GatewayOptions>[] = [];
