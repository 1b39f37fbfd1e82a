/**
 * One factory's queued tickets in serving order, with 1-based ranks in O(log n): a treap (a
 * binary search tree balanced by random node weights) whose nodes count their subtree.
 *
 * A plain FIFO array would give O(1) push/pop but O(n) position and removal, and a re-queued
 * ticket must go back ahead of later arrivals (it keeps its original priority), so order is by key:
 * (priority = sequence number, then arrival) rather than by insertion.
 */
export interface OrderedTicket {
  /** The sequence number: smaller is served first. */
  readonly priority: number;
  /** Breaks ties between equal priorities (first pushed first). */
  readonly arrival: number;
}

class TicketNode<E extends OrderedTicket> {
  size = 1;
  left: TicketNode<E> | null = null;
  right: TicketNode<E> | null = null;
  constructor(
    readonly entry: E,
    readonly weight: number,
  ) {}
}

const sizeOf = <E extends OrderedTicket>(t: TicketNode<E> | null): number => (t === null ? 0 : t.size);
const before = (a: OrderedTicket, b: OrderedTicket): boolean =>
  a.priority < b.priority || (a.priority === b.priority && a.arrival < b.arrival);

/** Deterministic node weights (xorshift32), so runs and tests are reproducible. */
let seed = 0x9e3779b9;
function nextWeight(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

export class TicketOrder<E extends OrderedTicket> {
  private root: TicketNode<E> | null = null;

  get size(): number {
    return sizeOf(this.root);
  }

  insert(entry: E): void {
    this.root = insertNode(this.root, new TicketNode(entry, nextWeight()));
  }

  /** Removes the entry (found by its key); false when it is not here. */
  remove(entry: E): boolean {
    const sizeBefore = this.size;
    this.root = removeNode(this.root, entry);
    return this.size < sizeBefore;
  }

  first(): E | undefined {
    let t = this.root;
    if (t === null) return undefined;
    while (t.left !== null) t = t.left;
    return t.entry;
  }

  /** 1-based position of the entry, or undefined when it is not here. */
  rank(entry: E): number | undefined {
    let rank = 0;
    let t = this.root;
    while (t !== null) {
      if (t.entry === entry) return rank + sizeOf(t.left) + 1;
      if (before(entry, t.entry)) t = t.left;
      else {
        rank += sizeOf(t.left) + 1;
        t = t.right;
      }
    }
    return undefined;
  }

  /** The first k entries in order: O(k + log n). */
  take(k: number): E[] {
    const out: E[] = [];
    const stack: TicketNode<E>[] = [];
    let t = this.root;
    while (out.length < k && (t !== null || stack.length > 0)) {
      while (t !== null) {
        stack.push(t);
        t = t.left;
      }
      const node = stack.pop()!;
      out.push(node.entry);
      t = node.right;
    }
    return out;
  }
}

function insertNode<E extends OrderedTicket>(t: TicketNode<E> | null, node: TicketNode<E>): TicketNode<E> {
  if (t === null) return node;
  t.size++;
  if (before(node.entry, t.entry)) {
    const left = insertNode(t.left, node);
    t.left = left;
    if (left.weight > t.weight) return rotateRight(t);
  } else {
    const right = insertNode(t.right, node);
    t.right = right;
    if (right.weight > t.weight) return rotateLeft(t);
  }
  return t;
}

function removeNode<E extends OrderedTicket>(t: TicketNode<E> | null, entry: E): TicketNode<E> | null {
  if (t === null) return null;
  if (t.entry === entry) return merge(t.left, t.right);
  if (before(entry, t.entry)) {
    const left = removeNode(t.left, entry);
    if (left !== t.left) t.left = left;
  } else {
    const right = removeNode(t.right, entry);
    if (right !== t.right) t.right = right;
  }
  t.size = sizeOf(t.left) + sizeOf(t.right) + 1;
  return t;
}

/** Joins two treaps where every key of `a` comes before every key of `b`. */
function merge<E extends OrderedTicket>(a: TicketNode<E> | null, b: TicketNode<E> | null): TicketNode<E> | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.weight > b.weight) {
    a.right = merge(a.right, b);
    a.size = sizeOf(a.left) + sizeOf(a.right) + 1;
    return a;
  }
  b.left = merge(a, b.left);
  b.size = sizeOf(b.left) + sizeOf(b.right) + 1;
  return b;
}

function rotateRight<E extends OrderedTicket>(t: TicketNode<E>): TicketNode<E> {
  const l = t.left!;
  t.left = l.right;
  l.right = t;
  t.size = sizeOf(t.left) + sizeOf(t.right) + 1;
  l.size = sizeOf(l.left) + sizeOf(l.right) + 1;
  return l;
}

function rotateLeft<E extends OrderedTicket>(t: TicketNode<E>): TicketNode<E> {
  const r = t.right!;
  t.right = r.left;
  r.left = t;
  t.size = sizeOf(t.left) + sizeOf(t.right) + 1;
  r.size = sizeOf(r.left) + sizeOf(r.right) + 1;
  return r;
}
