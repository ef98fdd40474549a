export { tokenModule } from './module';
