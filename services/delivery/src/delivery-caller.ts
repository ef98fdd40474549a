import { serviceCaller } from '@packyard/platform/grpc/caller';

/** the delivery module calling on its own behalf (the caller assertion names it) */
export const DELIVERY_CALLER = serviceCaller('delivery');
