/**
 * `npx tsx perf/profile/allocations-by-function.ts allocations-PID.json [top] [minus.json]`: bytes
 * allocated by each function (self, sampled) in a profile from allocation-sampling.mjs, the largest
 * first. A built-in (sort, Map, set...) is shown with the function that called it. With a second
 * profile, its bytes are subtracted (e.g. with ALLOCATION_SAMPLING_OLD=1 a base build's from a
 * branch's: what a change added to or took off the old space, by function).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const [file, topArg, minusFile] = process.argv.slice(2);
if (!file) throw new Error('usage: allocations-by-function.ts allocations-PID.json [top] [minus.json]');
const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/(src|node_modules)\//, '$1/')}`;

function byFunction(path: string): Map<string, number> {
  const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: ProfileNode };
  const bytes = new Map<string, number>();
  const walk = (node: ProfileNode, parent: ProfileNode | undefined) => {
    if (node.selfSize > 0) {
      const key = node.callFrame.url === '' && parent ? `${name(node)}(in ${name(parent)})` : name(node);
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, node);
  };
  walk(head, undefined);
  return bytes;
}

const bytes = byFunction(file);
if (minusFile) for (const [key, b] of byFunction(minusFile)) bytes.set(key, (bytes.get(key) ?? 0) - b);
const total = [...bytes.values()].reduce((a, b) => a + b, 0);
console.log(`total ${(total / 1e6).toFixed(1)} MB sampled${minusFile ? ' (difference)' : ''}`);
for (const [key, b] of [...bytes].sort((a, c) => c[1] - a[1]).slice(0, Number(topArg ?? 40))) {
  console.log(`${(b / 1e6).toFixed(2).padStart(9)} MB  ${key}`);
}
