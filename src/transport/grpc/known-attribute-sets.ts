import type { AttributeSet } from '../../attributes/attribute-value.js';
import type { AttributeValue as WireValue } from '../../generated/gamefactory/v1/attributes.js';

/**
 * The attribute sets requests decoded to before, found again from the wire message itself: a trie
 * of (key, value) pairs in the message's order, each path ending at the set the full decode
 * made of it. Nearly every ticket of a factory sends the same partition (and one of a few
 * matchable sets), and the full decode builds a field name, a value object and a key string per
 * attribute and a signature string per set just to find the shared set again: ~1.7 KB of garbage a
 * ticket. Following the trie builds nothing. Only pairs the full decode accepted are ever added,
 * so a path found here is valid as it is. Values are the wire's own primitives (string, boolean,
 * bigint, number), which never equal one another across kinds in a Map, so no key string is
 * needed; bytes (rare) take the full decode every time. Bounded: past MAX_NODES the trie starts over.
 */
export class KnownAttributeSets {
  private root = emptyNode();
  private nodes = 0;

  constructor(
    /** The set of a message without attributes. */
    private readonly empty: AttributeSet,
    private readonly maxNodes = MAX_NODES,
  ) {
    this.root.set = empty;
  }

  /** The set these exact pairs decoded to before; undefined: decode them in full (then `remember`). */
  find(wire: Readonly<Record<string, WireValue>>): AttributeSet | undefined {
    let node: TrieNode | undefined = this.root;
    for (const key in wire) {
      const value = primitiveOf(wire[key]);
      if (value === undefined) return undefined;
      node = node.next.get(key)?.get(value);
      if (node === undefined) return undefined;
    }
    return node.set;
  }

  /** What the full decode made of `wire`, for the next message that sends the same pairs. */
  remember(wire: Readonly<Record<string, WireValue>>, set: AttributeSet): void {
    let node = this.root;
    for (const key in wire) {
      const value = primitiveOf(wire[key]);
      if (value === undefined) return;
      let byValue = node.next.get(key);
      if (byValue === undefined) node.next.set(key, (byValue = new Map()));
      let child = byValue.get(value);
      if (child === undefined) {
        if (++this.nodes > this.maxNodes) return this.startOver();
        byValue.set(value, (child = emptyNode()));
      }
      node = child;
    }
    node.set = set;
  }

  private startOver(): void {
    this.root = emptyNode();
    this.root.set = this.empty;
    this.nodes = 0;
  }
}

type Primitive = string | boolean | bigint | number;

/** The value as the wire decoded it; undefined for bytes or no value (the full decode judges those). */
function primitiveOf(wire: WireValue | undefined): Primitive | undefined {
  const kind = wire?.kind;
  return kind === undefined || kind.$case === 'bytesValue' ? undefined : kind.value;
}

interface TrieNode {
  /** key -> value -> the node after that pair. */
  readonly next: Map<string, Map<Primitive, TrieNode>>;
  /** The set a message with exactly the pairs on the path to here decodes to, once one has. */
  set: AttributeSet | undefined;
}

const emptyNode = (): TrieNode => ({ next: new Map(), set: undefined });

/** Nodes kept at most (a few per distinct set): a client sending endless distinct sets costs the full decode, as before. */
const MAX_NODES = 16_384;
