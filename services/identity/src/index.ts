export { identityModule } from './module';
