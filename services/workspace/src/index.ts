export { workspaceModule } from './module';
