import { serviceCaller } from '@packyard/platform';

/** the gateway module calling on its own behalf (the caller assertion names it) */
export const GATEWAY_CALLER = serviceCaller('gateway');
