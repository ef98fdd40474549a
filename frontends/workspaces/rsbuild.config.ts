import { remoteConfig } from '@packyard/console-kit/build';

export default remoteConfig({ name: 'workspaces', port: 3001 });
