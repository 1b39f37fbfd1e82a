/**
 * Which party sizes make one game: `teams` teams of exactly `teamSize` players, parties whole,
 * from the parties at hand counted by size (available[s] = parties of s players). For this question
 * parties differ only by size, so the answer depends on at most teamSize small numbers however
 * many tickets wait: each count is capped at what one game could use, and answers are memoised.
 *
 * Exact, depth-first over team compositions, largest parties first (they are the hardest to place
 * later: trios left behind once the solos were used up), with failed states
 * remembered. The search is bounded by SEARCH_STEPS per question so a huge shape (64 teams of 16)
 * cannot stall a batch; past it the answer is "no game" and the parties wait for the next batch.
 */
export class GameComposition {
  private static readonly SEARCH_STEPS = 20_000;
  private readonly memo = new Map<number | string, readonly number[] | null>();
  private readonly capped: number[];
  private steps = 0;

  constructor(
    private readonly teams: number,
    private readonly teamSize: number,
  ) {
    this.capped = new Array<number>(teamSize + 1).fill(0);
  }

  /** Parties of each size (index = size) one game takes, or undefined when none can be made. */
  find(available: readonly number[]): readonly number[] | undefined {
    const perGame = this.teams * this.teamSize;
    let players = 0;
    // Mixed-radix number of the capped counts: a cheap exact key while it stays a safe integer.
    let key: number | string = 0;
    for (let s = 1; s <= this.teamSize; s++) {
      const most = Math.floor(perGame / s);
      const cap = Math.min(available[s] ?? 0, most);
      this.capped[s] = cap;
      players += cap * s;
      key = key * (most + 1) + cap;
    }
    if (players < perGame) return undefined;
    if (!Number.isSafeInteger(key)) key = this.capped.join(',');
    const known = this.memo.get(key);
    if (known !== undefined) return known ?? undefined;

    const left = this.capped.slice();
    this.steps = 0;
    const found = this.fill(left, this.teams, this.teamSize, this.teamSize, new Set<string>());
    const take = found ? this.capped.map((cap, s) => cap - (left[s] as number)) : null;
    this.memo.set(key, take);
    return take ?? undefined;
  }

  /** Places parts of at most `maxPart` into the current team (`remaining` seats), then the next teams. */
  private fill(left: number[], teamsLeft: number, remaining: number, maxPart: number, failed: Set<string>): boolean {
    if (++this.steps > GameComposition.SEARCH_STEPS) return false;
    if (remaining === 0) {
      if (teamsLeft === 1) return true;
      const state = `${left.join(',')}/${teamsLeft - 1}`;
      if (failed.has(state)) return false;
      if (this.fill(left, teamsLeft - 1, this.teamSize, this.teamSize, failed)) return true;
      failed.add(state);
      return false;
    }
    for (let s = Math.min(maxPart, remaining); s >= 1; s--) {
      if ((left[s] as number) === 0) continue;
      left[s] = (left[s] as number) - 1;
      if (this.fill(left, teamsLeft, remaining - s, s, failed)) return true;
      left[s] = (left[s] as number) + 1;
    }
    return false;
  }
}
