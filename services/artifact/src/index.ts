export { artifactModule } from './module';
