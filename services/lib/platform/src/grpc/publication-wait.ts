import { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import { PublishingServiceDefinition, type PublishedGeneration } from '@packyard/proto/packyard/repository/v1/publishing';
import { PackyardError } from '../errors/errors';
import type { Caller } from './caller';
import type { GrpcClients, PackyardClient } from './grpc-clients';

/** how long `waitUntilServed` waits in total by default (`?wait=published` answers 202 after it) */
export const PUBLICATION_WAIT_MS = 30_000;
/** each wait is a call shorter than the gRPC deadline */
const PUBLICATION_WAIT_CALL_MS = 8_000;
/** a replica that did not answer is asked again after this pause */
const REPLICA_RETRY_MS = 250;

/**
 * Whether apt and dnf get the package from the edge: first the repository module says every
 * distribution of the package has a publication that includes it, then the ones that answer
 * apt and dnf are asked: every delivery replica (each address DELIVERY_GRPC_ADDR lists) must
 * serve those generations or newer ones. A replica that does not answer (restarting) is asked
 * again until the deadline. One rule for every "once it is installable" in Packyard:
 * `?wait=published` of uploads and copies, and the `package.published` webhook.
 */
export async function waitUntilServed(clients: GrpcClients, repositoryId: string, packageId: string, caller: Caller, waitMs = PUBLICATION_WAIT_MS): Promise<boolean> {
  const publishing = clients.client(PublishingServiceDefinition, 'repository');
  const deadline = Date.now() + waitMs;
  let generations: PublishedGeneration[] | undefined;
  while (!generations && Date.now() < deadline) {
    const timeoutMs = Math.min(PUBLICATION_WAIT_CALL_MS, deadline - Date.now());
    const answer = await publishing.waitForPublication({ repositoryId, packageId, timeoutMs }, { caller }).catch(notYet);
    if (answer?.published) generations = answer.generations;
    if (!answer) await pause(deadline);
  }
  if (!generations) return false;
  const ask = async (replica: PackyardClient<typeof DeliveryServiceDefinition>) => {
    while (Date.now() < deadline) {
      const timeoutMs = Math.min(PUBLICATION_WAIT_CALL_MS, deadline - Date.now());
      const answer = await replica.waitForGenerations({ repositoryId, generations, timeoutMs }, { caller }).catch(() => undefined);
      if (answer?.served) return true;
      if (!answer) await pause(deadline);
    }
    return false;
  };
  return (await Promise.all(clients.replicaClients(DeliveryServiceDefinition, 'delivery').map(ask))).every(Boolean);
}

/**
 * A wait call that ran into its deadline (a loaded or restarting module answers late) or
 * found the module unreachable is asked again: until the whole wait is over the answer is
 * "not yet" (202), never a 504 for a package that was stored. Other errors are real.
 */
function notYet(error: unknown): undefined {
  if (error instanceof PackyardError && (error.kind === 'TIMEOUT' || error.kind === 'UNAVAILABLE')) return undefined;
  throw error;
}

const pause = (deadline: number) => new Promise((resolve) => setTimeout(resolve, Math.min(REPLICA_RETRY_MS, Math.max(deadline - Date.now(), 0))));
