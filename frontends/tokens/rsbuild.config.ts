import { remoteConfig } from '@packyard/console-kit/build';

export default remoteConfig({ name: 'tokens', port: 3002 });
