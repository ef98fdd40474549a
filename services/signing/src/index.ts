export { signingModule } from './module';
