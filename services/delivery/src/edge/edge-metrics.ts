import { Counter, Gauge, type Registry } from 'prom-client';
import type { PublishedCatalog } from '../catalog/published-catalog';

export type FileKind = 'metadata' | 'package' | 'key';

/**
 * `packyard_delivery_requests_total{kind,status}` and `packyard_delivery_bytes_total`,
 * counted in plain numbers on the request path and handed to prom-client only when
 * /metrics is scraped (a labelled inc() per request costs a label-key build each time), and
 * the catalogue's loads, evictions and files held.
 */
export class EdgeMetrics {
  /** kind → status → requests since the last scrape (no key string built per request) */
  private readonly requests = new Map<FileKind | 'none', Map<number, number>>();
  private readonly sent = { bytes: 0 };

  constructor(registry: Registry, catalog?: Pick<PublishedCatalog, 'counts' | 'filesHeld'>) {
    const pending = this.requests;
    const sent = this.sent;
    new Counter({
      name: 'packyard_delivery_requests_total',
      help: 'apt/yum edge requests by file kind and HTTP status',
      labelNames: ['kind', 'status'],
      registers: [registry],
      collect() {
        for (const [kind, byStatus] of pending) {
          for (const [status, count] of byStatus) this.inc({ kind, status: String(status) }, count);
          byStatus.clear();
        }
      },
    });
    new Counter({
      name: 'packyard_delivery_bytes_total',
      help: 'body bytes sent by the apt/yum edge',
      registers: [registry],
      collect() {
        this.inc(sent.bytes);
        sent.bytes = 0;
      },
    });
    if (!catalog) return;
    const counted = { loads: 0, evictions: 0 };
    const counter = (name: 'loads' | 'evictions', help: string) =>
      new Counter({
        name: `packyard_delivery_catalogue_${name}_total`,
        help,
        registers: [registry],
        collect() {
          this.inc(catalog.counts[name] - counted[name]);
          counted[name] = catalog.counts[name];
        },
      });
    counter('loads', 'repositories the edge read into its catalogue: at their first request, or again after an eviction');
    counter('evictions', 'repositories the edge dropped from its catalogue to keep its bound (least recently asked for first)');
    new Gauge({
      name: 'packyard_delivery_catalogue_files',
      help: 'files of the repositories the edge holds in its catalogue',
      registers: [registry],
      collect() {
        this.set(catalog.filesHeld);
      },
    });
  }

  request(kind: FileKind | 'none', status: number, bytes: number): void {
    let byStatus = this.requests.get(kind);
    if (!byStatus) this.requests.set(kind, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.sent.bytes += bytes;
  }
}
