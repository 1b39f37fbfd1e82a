/** A sorted set: members with scores, read in Redis' order (score, then member bytewise). */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private sorted: { member: string; score: number }[] | undefined;

  get size(): number {
    return this.scores.size;
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  /** Adds or rescores; true when the member is new. */
  set(member: string, score: number): boolean {
    const isNew = !this.scores.has(member);
    if (isNew || this.scores.get(member) !== score) this.sorted = undefined;
    this.scores.set(member, score);
    return isNew;
  }

  delete(member: string): boolean {
    if (!this.scores.delete(member)) return false;
    this.sorted = undefined;
    return true;
  }

  /** Every member in order. */
  ordered(): readonly { member: string; score: number }[] {
    if (this.sorted === undefined) {
      this.sorted = [...this.scores].map(([member, score]) => ({ member, score }));
      this.sorted.sort((a, b) => a.score - b.score || compareBytes(a.member, b.member));
    }
    return this.sorted;
  }

  clone(): SortedSet {
    const copy = new SortedSet();
    for (const [member, score] of this.scores) copy.scores.set(member, score);
    return copy;
  }

  rank(member: string): number | undefined {
    if (!this.scores.has(member)) return undefined;
    return this.ordered().findIndex((e) => e.member === member);
  }
}

/** Redis compares members as bytes (memcmp): UTF-8 order, which is code point order. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}
