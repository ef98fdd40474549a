import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventBusContract } from '@packyard/testing/contracts/event-bus.contract';
import { defaultEmbeddedBusSettings, EmbeddedEventBus, embeddedBusFile } from './embedded-event-bus.adapter';

eventBusContract('embedded (SQLite)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'packyard-bus-'));
  return {
    open: async () => EmbeddedEventBus.open(embeddedBusFile(dataDir), { ...defaultEmbeddedBusSettings, retry: { initialDelayMs: 10, maxDelayMs: 40 } }),
    dispose: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}, { oneConsumerPerGroup: 'the embedded log serves the modules of one process: a group has one consumer' });
