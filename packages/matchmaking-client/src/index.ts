export { PROTOCOL, type BackoffOptions, type PlainValue } from '@gamefactory/protocol';
export type { Assignment } from '@gamefactory/protocol/v1/matchmaker';
export { FindError } from './find-error.js';
export type { FindRequest, PartyMember } from './find-request.js';
export type { FindOptions } from './find-ticket.js';
export { Matchmaker, type MatchmakerOptions } from './matchmaker.js';
export { Ticket, type Assigned, type Proposed, type Queued, type Resuming, type TicketUpdate } from './ticket.js';
export type { ResumeOptions } from './transport.js';
export { credentials, status } from '@grpc/grpc-js';
