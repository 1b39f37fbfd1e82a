/** Why a player was not let into a game. */
export type AdmissionRefusal =
  /** No game with that id runs here. */
  | 'unknown-game'
  /** No seat was promised to this player with this token, within the grace period. */
  | 'no-reservation'
  /** The seat was held past its reservation's expiry; the coordinator may have given it away. */
  | 'expired'
  /** The server is closing. */
  | 'closed';

export class AdmissionError extends Error {
  override readonly name = 'AdmissionError';

  constructor(
    readonly refusal: AdmissionRefusal,
    readonly gameId: string,
    readonly playerId: string,
    message: string,
  ) {
    super(message);
  }
}
