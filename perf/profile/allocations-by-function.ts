/**
 * `npx tsx perf/profile/allocations-by-function.ts allocations-PID.json [top]`: bytes allocated by
 * each function (self, sampled) in a profile from allocation-sampling.mjs, the largest first. A
 * built-in (sort, Map, set...) is shown with the function that called it.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: allocations-by-function.ts allocations-PID.json [top]');
const { head } = JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode };
const name = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/.*\/(src|node_modules)\//, '$1/')}`;
const bytes = new Map<string, number>();
let total = 0;
const walk = (node: ProfileNode, parent: ProfileNode | undefined) => {
  total += node.selfSize;
  if (node.selfSize > 0) {
    const key = node.callFrame.url === '' && parent ? `${name(node)}(in ${name(parent)})` : name(node);
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, node);
};
walk(head, undefined);
console.log(`total ${(total / 1e6).toFixed(1)} MB sampled`);
for (const [key, b] of [...bytes].sort((a, c) => c[1] - a[1]).slice(0, Number(topArg ?? 40))) {
  console.log(`${(b / 1e6).toFixed(2).padStart(9)} MB  ${key}`);
}
