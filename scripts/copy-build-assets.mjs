// The files the compiled coordinator reads beside its JavaScript, copied into dist/ where each
// module looks for them (relative to import.meta.url): the gRPC contract for reflection, the Redis
// scripts, the operator page and the worker threads' entry.
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const copies = [
  ['proto', 'dist/proto'],
  ['src/redis/scripts', 'dist/src/redis/scripts'],
  ['src/operator-page/assets', 'dist/src/operator-page/assets'],
  ['src/competitive/slice-worker-bootstrap.mjs', 'dist/src/competitive/slice-worker-bootstrap.mjs'],
];
for (const [from, to] of copies) cpSync(join(root, from), join(root, to), { recursive: true });
