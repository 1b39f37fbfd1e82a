import { LocalDelivery } from './local-delivery.js';
import { PlayerClaims } from './player-claims.js';

export { LocalDelivery, PlayerClaims };
