import { remoteConfig } from '@packyard/console-kit/build';

export default remoteConfig({ name: 'settings', port: 3003 });
