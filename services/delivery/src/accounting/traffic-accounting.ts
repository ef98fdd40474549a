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

/**
 * Counts what the edge served in memory (two map updates per request) and turns the
 * totals into integration events when flushed: one FilesServed per repository and token,
 * one PackageDownloaded per package and token. Requests never wait on a store: only the
 * drain looks up which package a downloaded file is.
 */
export class TrafficAccounting {
  private traffic = new Map<string, TrafficTotals>();
  private downloads = new Map<string, DownloadTotals>();

  constructor(private readonly packageIdOf: (repositoryId: string, sha256: string) => Promise<string | undefined>) {}

  served(repository: RepositoryRecord, verdict: TokenVerdict, bytes: number, nowMs: number): void {
    const key = `${repository.id}|${verdict.tokenId}`;
    const totals = this.traffic.get(key);
    if (totals) {
      totals.requests += 1;
      totals.bytes += bytes;
      totals.lastMs = nowMs;
    } else this.traffic.set(key, { repository, verdict, requests: 1, bytes, firstMs: nowMs, lastMs: nowMs });
  }

  downloaded(repository: RepositoryRecord, verdict: TokenVerdict, sha256: string, bytes: number, nowMs: number): void {
    const key = `${repository.id}|${sha256}|${verdict.tokenId}`;
    const totals = this.downloads.get(key);
    if (totals) {
      totals.count += 1;
      totals.bytes += bytes;
      totals.lastMs = nowMs;
    } else this.downloads.set(key, { repository, verdict, sha256, count: 1, bytes, lastMs: nowMs });
  }

  /** the totals counted since the previous take, for another process's accounting to `add` (an edge worker's, its primary's) */
  take(): TrafficTotalsSnapshot {
    const taken = { traffic: [...this.traffic.values()], downloads: [...this.downloads.values()] };
    this.traffic = new Map();
    this.downloads = new Map();
    return taken;
  }

  /** counts what another process took (see take) as if it had been served here */
  add(snapshot: TrafficTotalsSnapshot): void {
    for (const totals of snapshot.traffic) {
      const key = `${totals.repository.id}|${totals.verdict.tokenId}`;
      const here = this.traffic.get(key);
      if (!here) this.traffic.set(key, { ...totals });
      else {
        here.requests += totals.requests;
        here.bytes += totals.bytes;
        here.firstMs = Math.min(here.firstMs, totals.firstMs);
        here.lastMs = Math.max(here.lastMs, totals.lastMs);
      }
    }
    for (const totals of snapshot.downloads) {
      const key = `${totals.repository.id}|${totals.sha256}|${totals.verdict.tokenId}`;
      const here = this.downloads.get(key);
      if (!here) this.downloads.set(key, { ...totals });
      else {
        here.count += totals.count;
        here.bytes += totals.bytes;
        here.lastMs = Math.max(here.lastMs, totals.lastMs);
      }
    }
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
