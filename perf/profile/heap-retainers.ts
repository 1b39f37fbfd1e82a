/**
 * `node --max-old-space-size=8192 --import tsx perf/profile/heap-retainers.ts FILE.heapsnapshot TYPE[:NAME] [depth] [top]`:
 * who holds the nodes of one kind (e.g. `array`, `object:Array`, `closure`, `object:Object`),
 * grouped by their retainer path up to `depth` steps (the first strong retainer at each step,
 * written `edge<-Retainer`), the largest groups first. heap-by-constructor.ts says what a heap
 * is made of; this says whose it is.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, kind, depthArg, topArg] = process.argv.slice(2);
if (!file || !kind) throw new Error('usage: heap-retainers.ts FILE.heapsnapshot TYPE[:NAME] [depth] [top]');
const [wantType, wantName] = kind.split(':') as [string, string | undefined];
const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const meta = s.snapshot.meta;
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const nw = meta.node_fields.length;
const ew = meta.edge_fields.length;
const [N_TYPE, N_NAME, N_SIZE, N_EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f)) as [number, number, number, number];
const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f)) as [number, number, number];
const count = s.nodes.length / nw;

// The first strong retainer of every node (weak edges and the snapshot's synthetic roots skipped).
const retainer = new Int32Array(count).fill(-1);
const retainerEdge = new Int32Array(count).fill(-1);
for (let n = 0, e = 0; n < count; n++) {
  const edges = s.nodes[n * nw + N_EDGES]!;
  for (let k = 0; k < edges; k++, e += ew) {
    const type = edgeTypes[s.edges[e + E_TYPE]!]!;
    if (type === 'weak' || type === 'shortcut') continue;
    const to = s.edges[e + E_TO]! / nw;
    if (retainer[to] === -1) {
      retainer[to] = n;
      retainerEdge[to] = e;
    }
  }
}

const label = (n: number) => {
  const type = nodeTypes[s.nodes[n * nw + N_TYPE]!]!;
  const name = s.strings[s.nodes[n * nw + N_NAME]!]!;
  return type === 'object' || type === 'closure' || type === 'native' || type === 'hidden' ? `${type} ${name.slice(0, 50)}` : type === 'array' ? `array ${name.slice(0, 30)}` : type;
};
const edgeLabel = (e: number) => {
  const type = edgeTypes[s.edges[e + E_TYPE]!]!;
  const raw = s.edges[e + E_NAME]!;
  return type === 'element' || type === 'hidden' ? `[${type === 'hidden' ? 'h' : ''}${raw}]` : s.strings[raw]!.slice(0, 40);
};

const depth = Number(depthArg ?? 3);
const groups = new Map<string, { bytes: number; count: number }>();
let total = 0;
let matched = 0;
for (let n = 0; n < count; n++) {
  if (nodeTypes[s.nodes[n * nw + N_TYPE]!] !== wantType) continue;
  if (wantName !== undefined && s.strings[s.nodes[n * nw + N_NAME]!] !== wantName) continue;
  const size = s.nodes[n * nw + N_SIZE]!;
  const path: string[] = [label(n)];
  for (let at = n, d = 0; d < depth && retainer[at]! >= 0; d++) {
    path.push(`${edgeLabel(retainerEdge[at]!)}<-${label(retainer[at]!)}`);
    at = retainer[at]!;
  }
  const key = path.join('  ');
  const g = groups.get(key) ?? { bytes: 0, count: 0 };
  g.bytes += size;
  g.count++;
  groups.set(key, g);
  total += size;
  matched++;
}
console.log(`${kind}: ${(total / 1e6).toFixed(1)} MB in ${matched.toLocaleString('en')} nodes`);
for (const [key, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(topArg ?? 30))) {
  console.log(`${(g.bytes / 1e6).toFixed(2).padStart(8)} MB ${g.count.toLocaleString('en').padStart(10)}  ${key}`);
}
