import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@packyard/platform';
import type { PackageDownloaded } from '@packyard/proto/packyard/artifact/v1/events';
import type { FilesServed } from '@packyard/proto/packyard/delivery/v1/events';
import type { TokenVerdict } from '../auth/token-verdicts';
import type { RepositoryRecord } from '../catalog/served-file';

interface TrafficTotals {
  repository: RepositoryRecord;
  verdict: TokenVerdict;
  requests: number;
  bytes: number;
  firstMs: number;
  lastMs: number;
}

interface DownloadTotals {
  repository: RepositoryRecord;
  verdict: TokenVerdict;
  sha256: string;
  count: number;
  bytes: number;
  lastMs: number;
}

export interface TrafficTotalsSnapshot {
  traffic: TrafficTotals[];
  downloads: DownloadTotals[];
}

/** the map under `key`, made when missing */
function inner<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = create()));
  return value;
}

const newMap = <K, V>() => new Map<K, V>();

/**
 * Counts what the edge served in memory and turns the totals into integration events when
 * flushed: one FilesServed per repository and token, one PackageDownloaded per package and
 * token. A request costs a few map lookups by the ids as they are (maps within maps: no key
 * string is built per request); requests never wait on a store: only the drain looks up
 * which package a downloaded file is.
 */
export class TrafficAccounting {
  /** repository id → token id → totals */
  private traffic = new Map<string, Map<string, TrafficTotals>>();
  /** repository id → file sha256 → token id → totals */
  private downloads = new Map<string, Map<string, Map<string, DownloadTotals>>>();

  constructor(private readonly packageIdOf: (repositoryId: string, sha256: string) => Promise<string | undefined>) {}

  served(repository: RepositoryRecord, verdict: TokenVerdict, bytes: number, nowMs: number): void {
    const byToken = inner(this.traffic, repository.id, newMap<string, TrafficTotals>);
    const here = byToken.get(verdict.tokenId);
    if (!here) return void byToken.set(verdict.tokenId, { repository, verdict, requests: 1, bytes, firstMs: nowMs, lastMs: nowMs });
    here.requests += 1;
    here.bytes += bytes;
    here.lastMs = nowMs;
  }

  downloaded(repository: RepositoryRecord, verdict: TokenVerdict, sha256: string, bytes: number, nowMs: number): void {
    const byToken = this.downloadsOf(repository.id, sha256);
    const here = byToken.get(verdict.tokenId);
    if (!here) return void byToken.set(verdict.tokenId, { repository, verdict, sha256, count: 1, bytes, lastMs: nowMs });
    here.count += 1;
    here.bytes += bytes;
    here.lastMs = nowMs;
  }

  /** the totals counted since the previous take, for another process's accounting to `add` (an edge worker's, its primary's) */
  take(): TrafficTotalsSnapshot {
    const taken: TrafficTotalsSnapshot = { traffic: [], downloads: [] };
    for (const byToken of this.traffic.values()) taken.traffic.push(...byToken.values());
    for (const byFile of this.downloads.values()) for (const byToken of byFile.values()) taken.downloads.push(...byToken.values());
    this.traffic = new Map();
    this.downloads = new Map();
    return taken;
  }

  /** counts what another process took (see take) as if it had been served here */
  add(snapshot: TrafficTotalsSnapshot): void {
    for (const totals of snapshot.traffic) {
      const byToken = inner(this.traffic, totals.repository.id, newMap<string, TrafficTotals>);
      const here = byToken.get(totals.verdict.tokenId);
      if (!here) byToken.set(totals.verdict.tokenId, { ...totals });
      else {
        here.requests += totals.requests;
        here.bytes += totals.bytes;
        here.firstMs = Math.min(here.firstMs, totals.firstMs);
        here.lastMs = Math.max(here.lastMs, totals.lastMs);
      }
    }
    for (const totals of snapshot.downloads) {
      const byToken = this.downloadsOf(totals.repository.id, totals.sha256);
      const here = byToken.get(totals.verdict.tokenId);
      if (!here) byToken.set(totals.verdict.tokenId, { ...totals });
      else {
        here.count += totals.count;
        here.bytes += totals.bytes;
        here.lastMs = Math.max(here.lastMs, totals.lastMs);
      }
    }
  }

  private downloadsOf(repositoryId: string, sha256: string): Map<string, DownloadTotals> {
    return inner(inner(this.downloads, repositoryId, newMap<string, Map<string, DownloadTotals>>), sha256, newMap<string, DownloadTotals>);
  }

  /** the events for everything counted since the previous drain */
  async drain(): Promise<BusMessage[]> {
    const { traffic, downloads } = this.take();
    const messages: BusMessage[] = [];
    for (const totals of traffic) {
      const data: FilesServed = {
        repositoryId: totals.repository.id,
        workspaceId: totals.repository.workspaceId,
        ownerId: totals.repository.ownerId,
        tokenId: totals.verdict.tokenId,
        tokenKind: totals.verdict.kind,
        requests: totals.requests,
        bytes: totals.bytes,
        firstServedAt: new Date(totals.firstMs).toISOString(),
        lastServedAt: new Date(totals.lastMs).toISOString(),
      };
      messages.push({ id: randomUUID(), type: 'FilesServed', key: totals.repository.id, data });
    }
    for (const totals of downloads) {
      // a file whose PackageUploaded has not reached delivery yet cannot be attributed
      const packageId = await this.packageIdOf(totals.repository.id, totals.sha256);
      if (!packageId) continue;
      const data: PackageDownloaded = {
        packageId,
        repositoryId: totals.repository.id,
        workspaceId: totals.repository.workspaceId,
        ownerId: totals.repository.ownerId,
        bytes: totals.bytes,
        tokenId: totals.verdict.tokenId,
        downloadedAt: new Date(totals.lastMs).toISOString(),
        count: totals.count,
      };
      messages.push({ id: randomUUID(), type: 'PackageDownloaded', key: totals.repository.id, data });
    }
    return messages;
  }
}
