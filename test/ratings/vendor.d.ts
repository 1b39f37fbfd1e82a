// Type shapes of the independent implementations the cross-checks compare against (untyped CJS).
declare module 'glicko2' {
  export interface Glicko2Player {
    getRating(): number;
    getRd(): number;
    getVol(): number;
  }
  export class Glicko2 {
    constructor(settings: { tau: number; rating: number; rd: number; vol: number });
    makePlayer(rating?: number, rd?: number, vol?: number): Glicko2Player;
    updateRatings(matches: [Glicko2Player, Glicko2Player, number][]): void;
  }
}
declare module 'elo-rank' {
  export default class EloRank {
    constructor(k?: number);
    getExpected(a: number, b: number): number;
    updateRating(expected: number, actual: number, current: number): number;
  }
}
