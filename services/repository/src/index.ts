export { repositoryModule } from './module';
