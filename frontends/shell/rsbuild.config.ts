import { shellConfig } from '@packyard/console-kit/build';

export default shellConfig({ port: 3000 });
