// The browser entry (`@gamefactory/matchmaking-client` under the "browser" condition, or
// `@gamefactory/matchmaking-client/browser`): the Node entry's API over fetch and the Connect
// protocol, with no gRPC library.
export { PROTOCOL, type BackoffOptions, type PlainValue } from '@gamefactory/protocol/web';
export type { Assignment } from '@gamefactory/protocol/web/v1/matchmaker';
export { FindError } from '../find-error.js';
export type { FindRequest, PartyMember } from '../find-request.js';
export type { FindOptions } from '../find-ticket.js';
export { Code as status } from '../status-code.js';
export { Ticket, type Assigned, type Queued, type Resuming, type TicketUpdate } from '../ticket.js';
export type { ResumeOptions } from '../transport.js';
export { Matchmaker, type BrowserMatchmakerOptions } from './matchmaker.js';
