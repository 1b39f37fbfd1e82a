/** The name of each limit, as in factories.yaml `limits:`, used in refusals and counters. */
export type LimitName =
  | 'rate.findGame'
  | 'rate.findGames'
  | 'rate.queryStats'
  | 'rate.cancelFind'
  | 'rate.ratings'
  | 'maxStreamsPerPeer'
  | 'maxTicketsInFlightPerStream'
  | 'maxMessageBytes'
  | 'maxUnreadBytesPerStream'
  | 'idleStreamTimeoutMs'
  | 'maxTrackedPeers';

/** Every time a limit refuses or closes something; the metrics adapter counts these by `limit`. */
export interface LimitEvent {
  readonly limit: LimitName;
  readonly peer: string;
}

export type LimitListener = (event: LimitEvent) => void;
