/**
 * What the core waits for. Each deadline is a kind and an id (a ticket, a creation, a factory, a
 * server, or '' for the core-wide ones); the core reads the kind when it falls due and asks the
 * part that owns it, so nothing inside the core holds a callback to be run later.
 */
export enum DeadlineKind {
  /** A waiting ticket's time to live, or an assigned ticket's retention, ends. */
  TicketExpiry,
  /** A ticket restored after a restart and never retried leaves the store. */
  RestoredExpiry,
  /** A server did not confirm a CreateGame in time. */
  CreateTimeout,
  /** A rate-limited server gets its next start token: serve the queue again. */
  DrainRetry,
  /** Queued clients hear their place again. */
  PositionRefresh,
  /** A server backed off after failed creations gets its slots back. */
  BreakerRest,
  /** A cooperative factory's earliest reserved seat lapses. */
  Reservations,
  /** A competitive factory's next batch is due. */
  Batch,
  /** A server's window of rejected reports closes: what it only counted is logged in one line. */
  RejectionSummary,
  /** A ticket retried after a restart stops waiting for the server its game was ordered on. */
  AwaitServer,
  /** An assigned ticket's retention for retries ends (set with `append`: never replaced or deleted). */
  Retention,
  /** A creation still in flight this long after its order: its tickets are stored with where it was sent. */
  StoreInFlight,
  /** A backfill request's time to live ends. */
  BackfillExpiry,
  /** A proposed match's time to accept is over (a ready check; id: the match). */
  Acceptance,
  /** A factory's match function did not answer its batch in time (id: the factory). */
  MatchFunction,
}

const KINDS = 15;

/**
 * Every deadline of the core in one binary heap and one queue, on the core's own clock: the edge reads
 * `nextAt` and calls the core when it comes (time is an input), so timers are deterministic in
 * tests and a recorded input log replays to the same effects. Ties fall due in the order they
 * were set. A new deadline for a (kind, id) replaces the old one; replaced and deleted entries are
 * skipped when they surface and compacted once they outnumber the live ones. O(log n) set and pop,
 * O(1) delete; one entry a ticket, in flat arrays (a timer per ticket cost a Timeout and two
 * closures each, tens of thousands alive at a time).
 *
 * Deadlines that are never replaced nor deleted and come in time order (an assigned ticket's
 * retention, always its assignment plus the same 30 s) are `append`ed to a queue instead: O(1)
 * in and out, and no entry in the per-kind maps of live ids. Every ticket answered in the last
 * 30 s has one (~300k at 10k tickets/s); in the heap each cost a set in a map of that size and a
 * pop through ~20 levels, cache misses both. `popDue` and `nextAt` take the earlier of the heap's
 * top and the queue's head, in the same (due, order set) order.
 */
export class Deadlines {
  private readonly dues: number[] = [];
  private readonly seqs: number[] = [];
  private readonly kinds: DeadlineKind[] = [];
  private readonly ids: string[] = [];
  /** The live entry (its seq) of each id, per kind. */
  private readonly live: Map<string, number>[] = Array.from({ length: KINDS }, () => new Map());
  private liveCount = 0;
  private nextSeq = 0;
  /** The queue of appended deadlines, from `head` on (entries before it are taken). */
  private readonly queueDues: number[] = [];
  private readonly queueSeqs: number[] = [];
  private readonly queueKinds: DeadlineKind[] = [];
  private readonly queueIds: string[] = [];
  private head = 0;

  get size(): number {
    return this.liveCount + this.queueDues.length - this.head;
  }

  /**
   * (kind, id) falls due at `at`, and will never be replaced or deleted (`set` and `delete` do not
   * see it). In time order it joins the queue; earlier than the queue's last, it goes in the heap.
   */
  append(kind: DeadlineKind, id: string, at: number): void {
    const last = this.queueDues.length - 1;
    if (last >= this.head && at < this.queueDues[last]!) return this.set(kind, id, at);
    this.queueDues.push(at);
    this.queueSeqs.push(this.nextSeq++);
    this.queueKinds.push(kind);
    this.queueIds.push(id);
  }

  /** (kind, id) falls due at `at`, replacing its earlier deadline. */
  set(kind: DeadlineKind, id: string, at: number): void {
    const seq = this.nextSeq++;
    const live = this.live[kind]!;
    // One look-up, not has() then set(): the maps hold every ticket kept for retries, and a
    // look-up in them is a cache miss more often than not.
    const before = live.size;
    live.set(id, seq);
    this.liveCount += live.size - before;
    this.push(at, seq, kind, id);
    if (this.dues.length > 2 * this.liveCount + 1024) this.compact();
  }

  /** (kind, id) no longer falls due. */
  delete(kind: DeadlineKind, id: string): void {
    if (!this.live[kind]!.delete(id)) return;
    if (--this.liveCount === 0) this.dues.length = this.seqs.length = this.kinds.length = this.ids.length = 0;
  }

  has(kind: DeadlineKind, id: string): boolean {
    return this.live[kind]!.has(id);
  }

  /** When the earliest live deadline falls due, if any. */
  nextAt(): number | undefined {
    this.dropStale();
    const queued = this.head < this.queueDues.length ? this.queueDues[this.head] : undefined;
    if (this.dues.length === 0) return queued;
    return queued !== undefined && queued < this.dues[0]! ? queued : this.dues[0];
  }

  /** The earliest live deadline due at or before `now`, taken out; undefined when none is. */
  popDue(now: number): { readonly kind: DeadlineKind; readonly id: string; readonly at: number } | undefined {
    this.dropStale();
    const h = this.head;
    const fromQueue =
      h < this.queueDues.length &&
      (this.dues.length === 0 || this.queueDues[h]! < this.dues[0]! || (this.queueDues[h] === this.dues[0] && this.queueSeqs[h]! < this.seqs[0]!));
    if (fromQueue) {
      if (this.queueDues[h]! > now) return undefined;
      const due = { kind: this.queueKinds[h]!, id: this.queueIds[h]!, at: this.queueDues[h]! };
      this.takeHead();
      return due;
    }
    if (this.dues.length === 0 || this.dues[0]! > now) return undefined;
    const due = { kind: this.kinds[0]!, id: this.ids[0]!, at: this.dues[0]! };
    this.pop();
    this.live[due.kind]!.delete(due.id);
    this.liveCount--;
    return due;
  }

  /** The queue's head is taken; its taken prefix is cut off once it is most of the arrays. */
  private takeHead(): void {
    this.head++;
    const length = this.queueDues.length;
    if (this.head === length) {
      this.head = 0;
      this.queueDues.length = this.queueSeqs.length = this.queueKinds.length = this.queueIds.length = 0;
    } else if (this.head >= 1024 && this.head * 2 >= length) {
      this.queueDues.splice(0, this.head);
      this.queueSeqs.splice(0, this.head);
      this.queueKinds.splice(0, this.head);
      this.queueIds.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Pops heap tops that were replaced or deleted. */
  private dropStale(): void {
    while (this.dues.length > 0 && this.live[this.kinds[0]!]!.get(this.ids[0]!) !== this.seqs[0]) this.pop();
  }

  /**
   * Drops replaced and deleted entries in place, then restores the heap order bottom-up (Floyd):
   * O(n), amortized O(1) per set, and no tuple per kept entry. Entries pop in (due, seq) order, a
   * total order, so the layout the rebuild leaves does not change what falls due when.
   */
  private compact(): void {
    let kept = 0;
    for (let i = 0; i < this.dues.length; i++) {
      if (this.live[this.kinds[i]!]!.get(this.ids[i]!) !== this.seqs[i]) continue;
      this.dues[kept] = this.dues[i]!;
      this.seqs[kept] = this.seqs[i]!;
      this.kinds[kept] = this.kinds[i]!;
      this.ids[kept] = this.ids[i]!;
      kept++;
    }
    this.dues.length = this.seqs.length = this.kinds.length = this.ids.length = kept;
    for (let i = (kept >> 1) - 1; i >= 0; i--) this.siftDown(i, kept);
  }

  private before(i: number, j: number): boolean {
    return this.dues[i]! < this.dues[j]! || (this.dues[i] === this.dues[j] && this.seqs[i]! < this.seqs[j]!);
  }

  // Through locals, not destructuring: `[a[i], a[j]] = [a[j], a[i]]` allocated its array (and a
  // heap number for each due) on every swap, ~470 B of garbage a ticket in an allocation profile.
  private swap(i: number, j: number): void {
    const due = this.dues[i]!;
    this.dues[i] = this.dues[j]!;
    this.dues[j] = due;
    const seq = this.seqs[i]!;
    this.seqs[i] = this.seqs[j]!;
    this.seqs[j] = seq;
    const kind = this.kinds[i]!;
    this.kinds[i] = this.kinds[j]!;
    this.kinds[j] = kind;
    const id = this.ids[i]!;
    this.ids[i] = this.ids[j]!;
    this.ids[j] = id;
  }

  private push(due: number, seq: number, kind: DeadlineKind, id: string): void {
    let i = this.dues.push(due) - 1;
    this.seqs.push(seq);
    this.kinds.push(kind);
    this.ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop(): void {
    const last = this.dues.length - 1;
    this.swap(0, last);
    this.dues.pop();
    this.seqs.pop();
    this.kinds.pop();
    this.ids.pop();
    this.siftDown(0, last);
  }

  /** Moves entry i down until neither child of it (among the first `size`) is before it. */
  private siftDown(i: number, size: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < size && this.before(l, smallest)) smallest = l;
      if (r < size && this.before(r, smallest)) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }
}
