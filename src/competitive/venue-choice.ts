import type { BatchEntry } from './batch-entry.js';

export interface MapChoice {
  readonly map: string | undefined;
  /** Players whose party stated preferences that the chosen map does not meet. */
  readonly unmetPreferences: number;
}

export interface RegionChoice {
  readonly region: string | undefined;
  /** The worst latency of any member to the chosen region (0 when latency does not apply). */
  readonly worstLatencyMs: number;
}

/** Shared results for factories without maps or regions, so pairing a batch allocates nothing for them. */
const NO_MAP: MapChoice = { map: undefined, unmetPreferences: 0 };
const ANY_REGION: RegionChoice = { region: undefined, worstLatencyMs: 0 };

/** A game's map or region as an index into the config, or one of these. */
export const NOT_CONFIGURED = -1;
/** No map or region suits every member: the game cannot start. */
export const NONE_SUITS = -2;

/**
 * What one team brings to its game's choice of map and region (VenueChoice.summarize): per map,
 * whether a member vetoed it, the players who prefer it and the players whose stated preferences
 * it misses; per region, the worst latency of the members who measured any (Infinity when one of
 * them cannot play there). A game's choice is then a sum over its teams, so the hill-climber
 * re-reads only the members of the teams a move touched.
 */
export class VenueSummary {
  anyMeasured = false;
  readonly mapVetoed: Uint8Array;
  readonly mapVotes: Float64Array;
  readonly mapUnmet: Float64Array;
  readonly regionWorst: Float64Array;

  constructor(maps: number, regions: number) {
    this.mapVetoed = new Uint8Array(maps);
    this.mapVotes = new Float64Array(maps);
    this.mapUnmet = new Float64Array(maps);
    this.regionWorst = new Float64Array(regions);
  }
}

const NOTHING_TO_CHOOSE = new VenueSummary(0, 0);

/**
 * Where a game is played: a map nobody vetoed that the most players prefer, and the region that
 * minimises the worst member latency while staying under every member's latency cap (the cap of
 * the expansion step in force for that member's wait). Ties go to the earlier entry of the config,
 * so choices are deterministic. Cost is in (maps + regions) x members, never in the pool size.
 * chooseMap and chooseRegion look at a game's members; mapOf and regionOf give the same choices
 * from its teams' summaries.
 */
export class VenueChoice {
  /** chooseMap and chooseRegion sum the game's members as if they were one team, here. */
  private readonly wholeGame: VenueSummary[];

  constructor(
    private readonly maps: readonly string[],
    private readonly regions: readonly string[],
  ) {
    this.wholeGame = [new VenueSummary(maps.length, regions.length)];
  }

  /** True when no map or region is configured: every game then gets NO_MAP and ANY_REGION. */
  get trivial(): boolean {
    return this.maps.length === 0 && this.regions.length === 0;
  }

  /** undefined when every configured map is vetoed by someone in the game. */
  chooseMap(members: readonly BatchEntry[]): MapChoice | undefined {
    if (this.maps.length === 0) return NO_MAP;
    const whole = this.wholeGame;
    this.summarizeMaps(members, whole[0] as VenueSummary);
    const m = this.mapOf(whole, 1);
    if (m === NONE_SUITS) return undefined;
    return { map: this.maps[m], unmetPreferences: this.unmetOf(whole, 1, m) };
  }

  /**
   * undefined when no region is under every member's cap. Members that measured nothing accept
   * any region; a member that measured some regions only accepts those.
   */
  chooseRegion(members: readonly BatchEntry[]): RegionChoice | undefined {
    if (this.regions.length === 0) return ANY_REGION;
    const whole = this.wholeGame;
    this.summarizeRegions(members, whole[0] as VenueSummary);
    const r = this.regionOf(whole, 1);
    if (r === NOT_CONFIGURED) return ANY_REGION;
    if (r === NONE_SUITS) return undefined;
    return { region: this.regions[r], worstLatencyMs: this.worstLatencyOf(whole, 1, r) };
  }

  newSummary(): VenueSummary {
    // Without maps or regions summarize writes nothing: every team shares one empty summary (a
    // typed array costs more to make than the rest of a team's summary).
    if (this.trivial) return NOTHING_TO_CHOOSE;
    return new VenueSummary(this.maps.length, this.regions.length);
  }

  /** Fills `into` with what `team` brings to the choice (nothing to do when nothing is configured). */
  summarize(team: readonly BatchEntry[], into: VenueSummary): void {
    this.summarizeMaps(team, into);
    this.summarizeRegions(team, into);
  }

  private summarizeMaps(team: readonly BatchEntry[], into: VenueSummary): void {
    const { maps } = this;
    for (let m = 0; m < maps.length; m++) {
      const map = maps[m] as string;
      let vetoed = 0;
      let votes = 0;
      let unmet = 0;
      for (const member of team) {
        const { preferredMaps, vetoedMaps } = member.ticket;
        if (vetoedMaps.includes(map)) vetoed = 1;
        if (preferredMaps.includes(map)) votes += member.size;
        else if (preferredMaps.length > 0) unmet += member.size;
      }
      into.mapVetoed[m] = vetoed;
      into.mapVotes[m] = votes;
      into.mapUnmet[m] = unmet;
    }
  }

  private summarizeRegions(team: readonly BatchEntry[], into: VenueSummary): void {
    const { regions } = this;
    if (regions.length === 0) return;
    let anyMeasured = false;
    for (const member of team) if (member.ticket.latencyMs.size > 0) anyMeasured = true;
    into.anyMeasured = anyMeasured;
    for (let r = 0; r < regions.length; r++) {
      const region = regions[r] as string;
      let worst = 0;
      for (const member of team) {
        const latencies = member.ticket.latencyMs;
        if (latencies.size === 0) continue;
        const ms = latencies.get(region);
        if (ms === undefined || ms > member.maxLatencyMs) {
          worst = Infinity;
          break;
        }
        if (ms > worst) worst = ms;
      }
      into.regionWorst[r] = worst;
    }
  }

  /** chooseMap from the first `teams` summaries: the map's index, NOT_CONFIGURED or NONE_SUITS. */
  mapOf(summaries: readonly VenueSummary[], teams: number): number {
    if (this.maps.length === 0) return NOT_CONFIGURED;
    let best = NONE_SUITS;
    let bestVotes = -1;
    for (let m = 0; m < this.maps.length; m++) {
      let votes = 0;
      let vetoed = false;
      for (let t = 0; t < teams; t++) {
        const summary = summaries[t] as VenueSummary;
        if (summary.mapVetoed[m] === 1) vetoed = true;
        votes += summary.mapVotes[m] as number;
      }
      if (!vetoed && votes > bestVotes) {
        best = m;
        bestVotes = votes;
      }
    }
    return best;
  }

  /** Players whose stated preferences map `m` misses (0 unless m is a configured map). */
  unmetOf(summaries: readonly VenueSummary[], teams: number, m: number): number {
    if (m < 0) return 0;
    let unmet = 0;
    for (let t = 0; t < teams; t++) unmet += (summaries[t] as VenueSummary).mapUnmet[m] as number;
    return unmet;
  }

  /** chooseRegion from the first `teams` summaries: the region's index, NOT_CONFIGURED or NONE_SUITS. */
  regionOf(summaries: readonly VenueSummary[], teams: number): number {
    if (this.regions.length === 0) return NOT_CONFIGURED;
    let anyMeasured = false;
    for (let t = 0; t < teams; t++) if ((summaries[t] as VenueSummary).anyMeasured) anyMeasured = true;
    if (!anyMeasured) return NOT_CONFIGURED;
    let best = NONE_SUITS;
    let bestWorst = Infinity;
    for (let r = 0; r < this.regions.length; r++) {
      const worst = this.worstLatencyOf(summaries, teams, r);
      if (worst < bestWorst) {
        best = r;
        bestWorst = worst;
      }
    }
    return best;
  }

  /** The worst member latency to region `r` (0 unless r is a configured region). */
  worstLatencyOf(summaries: readonly VenueSummary[], teams: number, r: number): number {
    if (r < 0) return 0;
    let worst = 0;
    for (let t = 0; t < teams; t++) {
      const ms = (summaries[t] as VenueSummary).regionWorst[r] as number;
      if (ms > worst) worst = ms;
    }
    return worst;
  }

  mapName(m: number): string | undefined {
    return m < 0 ? undefined : this.maps[m];
  }

  regionName(r: number): string | undefined {
    return r < 0 ? undefined : this.regions[r];
  }
}
