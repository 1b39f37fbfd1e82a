/**
 * `node --max-old-space-size=8192 --import tsx perf/profile/heap-by-constructor.ts FILE.heapsnapshot [top]`:
 * self size and count by constructor (objects, closures) or by node type (strings, arrays, code...),
 * the largest first: what a heap is made of, without opening DevTools.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: heap-by-constructor.ts FILE.heapsnapshot [top]');
const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const fields = s.snapshot.meta.node_fields;
const types = s.snapshot.meta.node_types[0];
const width = fields.length;
const [TYPE, NAME, SIZE] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
const groups = new Map<string, { bytes: number; count: number }>();
let total = 0;
for (let i = 0; i < s.nodes.length; i += width) {
  const type = types[s.nodes[i + TYPE]!]!;
  const size = s.nodes[i + SIZE]!;
  const key = type === 'object' || type === 'closure' || type === 'hidden' || type === 'native' ? `${type} ${s.strings[s.nodes[i + NAME]!]!.slice(0, 60)}` : type;
  const g = groups.get(key) ?? { bytes: 0, count: 0 };
  g.bytes += size;
  g.count++;
  groups.set(key, g);
  total += size;
}
console.log(`total ${(total / 1e6).toFixed(1)} MB in ${(s.nodes.length / width).toLocaleString('en')} nodes`);
for (const [key, g] of [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, Number(topArg ?? 40))) {
  console.log(`${(g.bytes / 1e6).toFixed(2).padStart(8)} MB ${g.count.toLocaleString('en').padStart(11)}  ${key}`);
}
