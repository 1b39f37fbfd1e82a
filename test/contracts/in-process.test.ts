import { LocalDelivery, PlayerClaims } from '../../src/cluster/in-process/index.js';
import { runContract } from './contract.js';
import { orderDeliveryCases } from './order-delivery.contract.js';
import { playerIndexCases } from './player-index.contract.js';

runContract('PlayerIndex', 'in-process', playerIndexCases, () => new PlayerClaims());
runContract('OrderDelivery', 'in-process', orderDeliveryCases, () => new LocalDelivery());
