import { remoteConfig } from '@packyard/console-kit/build';

export default remoteConfig({ name: 'repository', port: 3004 });
