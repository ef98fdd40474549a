import { describe, expect, it } from 'vitest';
import { BLOB_STORE_SETTINGS } from './blob-store.module';
import { loadConfig, readSettings, settingsMarkdownTable } from './config';
import { BUS_SETTINGS } from './event-sourcing.module';
import { HTTP_SERVER_SETTINGS } from './infrastructure-settings';

describe('configuration from the environment', () => {
  it('defaults to single-node mode on port 8080 with data under ./data', () => {
    const config = loadConfig({});
    expect(readSettings(HTTP_SERVER_SETTINGS, {}).values.port).toBe(8080);
    expect(config.dataDir).toBe(`${process.cwd()}/data`);
    expect([config.eventStore, readSettings(BUS_SETTINGS, {}).values.bus, readSettings(BLOB_STORE_SETTINGS, {}).values.blobs]).toEqual(['sqlite', 'embedded', 'fs']);
    expect(config.maxUploadBytes).toBe(100 * 1024 * 1024);
  });

  it('honours PORT and DATA_DIR and collects module addresses', () => {
    const env = { PORT: '9999', DATA_DIR: '/srv/packyard', WORKSPACE_GRPC_ADDR: 'workspace:9090' };
    const config = loadConfig(env);
    expect(readSettings(HTTP_SERVER_SETTINGS, env).values.port).toBe(9999);
    expect(config.dataDir).toBe('/srv/packyard');
    expect(config.moduleAddresses).toEqual({ workspace: 'workspace:9090' });
  });

  it('reports every invalid setting of a declaration at once, and relations between settings', () => {
    expect(readSettings(HTTP_SERVER_SETTINGS, { PORT: 'eighty', TRUST_PROXY: 'maybe' }).errors).toEqual([
      'PORT must be a whole number from 0 to 65535, got "eighty"',
      'TRUST_PROXY must be true or false, got "maybe"',
    ]);
    expect(readSettings(BUS_SETTINGS, { BUS: 'rabbit' }).errors).toEqual(['BUS must be one of embedded, kafka, got "rabbit"']);
    expect(readSettings(BLOB_STORE_SETTINGS, { BLOBS: 's3' }).errors).toEqual(['BLOBS=s3 needs S3_ENDPOINT, S3_ACCESS_KEY and S3_SECRET_KEY']);
    expect(() => loadConfig({ EVENT_STORE: 'mongodb' })).toThrow('EVENT_STORE=mongodb needs MONGODB_URL');
  });

  it('documents the process settings and those of the modules given, once each', () => {
    const table = settingsMarkdownTable([{ settings: HTTP_SERVER_SETTINGS }, { settings: HTTP_SERVER_SETTINGS }]);
    expect(table).toContain('| `PORT` | `8080` |');
    expect(table).toContain('| `PACKYARD_MASTER_KEY` | (unset) |');
    expect(table.match(/`PORT`/g)).toHaveLength(1);
  });
});
