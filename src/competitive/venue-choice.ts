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

/**
 * Where a game is played: a map nobody vetoed that the most players prefer, and the region that
 * minimises the worst member latency while staying under every member's latency cap (the cap of
 * the expansion step in force for that member's wait). Ties go to the earlier entry of the config,
 * so choices are deterministic. Cost is in (maps + regions) x members, never in the pool size.
 */
/** Shared results for factories without maps or regions, so pairing a batch allocates nothing for them. */
const NO_MAP: MapChoice = { map: undefined, unmetPreferences: 0 };
const ANY_REGION: RegionChoice = { region: undefined, worstLatencyMs: 0 };

export class VenueChoice {
  constructor(
    private readonly maps: readonly string[],
    private readonly regions: readonly string[],
  ) {}

  /** True when no map or region is configured: every game then gets NO_MAP and ANY_REGION. */
  get trivial(): boolean {
    return this.maps.length === 0 && this.regions.length === 0;
  }

  /** undefined when every configured map is vetoed by someone in the game. */
  chooseMap(members: readonly BatchEntry[]): MapChoice | undefined {
    if (this.maps.length === 0) return NO_MAP;
    let best: string | undefined;
    let bestVotes = -1;
    for (const map of this.maps) {
      let votes = 0;
      let vetoed = false;
      for (const member of members) {
        if (member.ticket.vetoedMaps.includes(map)) {
          vetoed = true;
          break;
        }
        if (member.ticket.preferredMaps.includes(map)) votes += member.size;
      }
      if (!vetoed && votes > bestVotes) {
        best = map;
        bestVotes = votes;
      }
    }
    if (best === undefined) return undefined;
    let unmet = 0;
    for (const member of members) {
      const prefs = member.ticket.preferredMaps;
      if (prefs.length > 0 && !prefs.includes(best)) unmet += member.size;
    }
    return { map: best, unmetPreferences: unmet };
  }

  /**
   * undefined when no region is under every member's cap. Members that measured nothing accept
   * any region; a member that measured some regions only accepts those.
   */
  chooseRegion(members: readonly BatchEntry[]): RegionChoice | undefined {
    if (this.regions.length === 0) return ANY_REGION;
    let anyMeasured = false;
    for (const member of members) {
      if (member.ticket.latencyMs.size > 0) anyMeasured = true;
    }
    if (!anyMeasured) return ANY_REGION;
    let best: string | undefined;
    let bestWorst = Infinity;
    for (const region of this.regions) {
      let worst = 0;
      for (const member of members) {
        const latencies = member.ticket.latencyMs;
        if (latencies.size === 0) continue;
        const ms = latencies.get(region);
        if (ms === undefined || ms > member.maxLatencyMs) {
          worst = Infinity;
          break;
        }
        if (ms > worst) worst = ms;
      }
      if (worst < bestWorst) {
        best = region;
        bestWorst = worst;
      }
    }
    return best === undefined ? undefined : { region: best, worstLatencyMs: bestWorst };
  }
}
