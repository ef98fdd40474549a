export { deliveryModule } from './module';
