import { formatDistribution } from '@packyard/formats';
import { invalid, type CallerContext, type PackyardClient } from '@packyard/platform';
import type { DeliveryServiceDefinition } from '@packyard/proto/packyard/delivery/v1/delivery';
import type { Repository, RepositoryServiceDefinition } from '@packyard/proto/packyard/repository/v1/repository';
import type { ServiceImplementation } from 'nice-grpc';
import type { PublishedCatalog } from '../catalog/published-catalog';
import type { RepositoryRecord } from '../catalog/served-file';
import { renderInstallScript } from '../install-scripts/install-script';
import { ARMORED_KEY_FILE, KEYRING_FILE } from '../keys/public-keys';
import { aptChoice, installSnippets, repositoryUrl, resolveOrigin } from '../snippets/install-snippets';
import { DELIVERY_CALLER } from '../delivery-caller';

const MAX_GENERATION_WAIT_MS = 30_000;

const toRecord = (repository: Repository): RepositoryRecord => ({
  id: repository.id,
  kind: repository.kind === 'RPM' ? 'RPM' : 'DEB',
  workspaceId: repository.workspaceId,
  workspaceSlug: repository.workspaceSlug,
  name: repository.name,
  ownerId: repository.ownerId,
  codename: repository.codename,
  component: repository.component,
});

/**
 * Snippets and install scripts. The repository comes from the repository module with the
 * caller's identity, so tenancy is its check (another user's repository is 404); the
 * install script is public (it holds no secret) and is looked up by the delivery module
 * itself. Which generations are served is not secret per caller either: the gateway asks
 * about a repository it just accepted an authorised upload for.
 */
export function deliveryHandlers(
  repositories: PackyardClient<typeof RepositoryServiceDefinition>,
  catalog: Pick<PublishedCatalog, 'waitForGenerations' | 'stocked'>,
  publicUrl: string | undefined,
): ServiceImplementation<typeof DeliveryServiceDefinition, CallerContext> {
  return {
    async waitForGenerations(request) {
      const timeoutMs = Math.min(Math.max(request.timeoutMs, 0), MAX_GENERATION_WAIT_MS);
      // the catalog knows a target by `distro/version`, the key its records are stored under; one
      // without a target (sent by a repository module older than the message) is never served
      const wanted = new Map(request.generations.map(({ targetDistribution, generation }) => [targetDistribution ? formatDistribution(targetDistribution) : '', generation]));
      return { served: await catalog.waitForGenerations(request.repositoryId, wanted, timeoutMs) };
    },

    async getSnippets(request, { caller }) {
      const repository = toRecord(await repositories.getRepository({ id: request.repositoryId, workspaceId: '' }, { caller }));
      return installSnippets({
        origin: resolveOrigin(publicUrl, request.origin),
        repository,
        stocked: await catalog.stocked(repository.id),
        distro: request.distro,
        codename: request.codename,
        component: request.component,
        token: request.token,
      });
    },

    async getInstallScript(request) {
      if (request.product !== 'deb' && request.product !== 'rpm') throw invalid('PACKYARD_DELIVERY_UNKNOWN_PRODUCT', 'Install scripts exist for deb and rpm');
      const repository = toRecord(await repositories.getRepository({ id: request.repositoryId, workspaceId: '' }, { caller: DELIVERY_CALLER }));
      const kind = repository.kind === 'DEB' ? 'deb' : 'rpm';
      if (kind !== request.product) throw invalid('PACKYARD_DELIVERY_WRONG_PRODUCT', `Repository ${repository.name} is ${repository.kind}: use install-${kind}.sh`);
      const baseUrl = repositoryUrl(resolveOrigin(publicUrl, request.origin), repository);
      const stocked = (await catalog.stocked(repository.id)).map(({ distro, version }) => `${distro}/${version}`);
      if (kind === 'rpm') {
        return { script: renderInstallScript('rpm', { repositoryName: repository.name, repositoryUrl: baseUrl, publicKeyUrl: `${baseUrl}/${ARMORED_KEY_FILE}`, stocked }) };
      }
      // without a codename the script uses the machine's own, which is what a shared download wants
      const choice = request.codename ? aptChoice(repository, [], request) : undefined;
      return {
        script: renderInstallScript('deb', {
          repositoryName: repository.name,
          repositoryUrl: baseUrl,
          keyringUrl: `${baseUrl}/${KEYRING_FILE}`,
          distro: choice?.distro ?? '',
          codename: choice?.codename ?? '',
          component: choice?.component ?? aptChoice(repository, [], { component: request.component }).component,
          stocked,
        }),
      };
    },
  };
}
