export { PROTOCOL, type BackoffOptions, type PlainValue } from '@gamefactory/protocol';
export { AdmissionError, type AdmissionRefusal } from './admission-error.js';
export type { GameOrder } from './game-order.js';
export { GameServer } from './game-server.js';
export type { Capacity, Connected, Disconnected, GameServerOptions, RunningGameInfo, SeatsReserved } from './game-server-options.js';
export type { HostedGame, Seat } from './hosted-games.js';
export type { ResultAck } from './result-reports.js';
export { credentials, status } from '@grpc/grpc-js';
export { BackfillEndedError, type BackfillEnd, type BackfillFilled, type BackfillHandle, type BackfillOptions, type RemainingPlayer } from './backfill-requests.js';
