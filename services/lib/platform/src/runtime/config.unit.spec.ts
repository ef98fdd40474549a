import { describe, expect, it } from 'vitest';
import { loadConfig, settingsMarkdownTable } from './config';

describe('configuration from the environment', () => {
  it('defaults to single-node mode on port 8080 with data under ./data', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.dataDir).toBe(`${process.cwd()}/data`);
    expect([config.eventStore, config.bus, config.blobs]).toEqual(['sqlite', 'embedded', 'fs']);
    expect(config.maxUploadBytes).toBe(100 * 1024 * 1024);
  });

  it('honours PORT and DATA_DIR and collects module addresses', () => {
    const config = loadConfig({ PORT: '9999', DATA_DIR: '/srv/packyard', WORKSPACE_GRPC_ADDR: 'workspace:9090' });
    expect(config.port).toBe(9999);
    expect(config.dataDir).toBe('/srv/packyard');
    expect(config.moduleAddresses).toEqual({ workspace: 'workspace:9090' });
  });

  it('reports every invalid setting at once', () => {
    expect(() => loadConfig({ PORT: 'eighty', BUS: 'rabbit', BLOBS: 's3' })).toThrow(
      /PORT must be a whole number from 0 to 65535, got "eighty"[\s\S]*BUS must be one of embedded, kafka, got "rabbit"[\s\S]*BLOBS=s3 needs S3_ENDPOINT/,
    );
  });

  it('documents every variable in the README table', () => {
    expect(settingsMarkdownTable()).toContain('| `PORT` | `8080` |');
    expect(settingsMarkdownTable()).toContain('| `PACKYARD_MASTER_KEY` | (unset) |');
  });
});
