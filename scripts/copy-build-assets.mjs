// The files the compiled coordinator reads beside its JavaScript, copied into dist/ where each
// module looks for them (relative to import.meta.url): the contract's descriptor sets reflection serves, the Redis
// scripts, the operator page and the worker threads' entry. And the bin made executable: in a
// clone, `npx gamefactory` runs package.json's bin file itself (npm sets the mode only when it
// installs a package), and tsc writes it without the execute bit.
import { chmodSync, cpSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const copies = [
  ['src/redis/scripts', 'dist/src/redis/scripts'],
  ['src/operator-page/assets', 'dist/src/operator-page/assets'],
  ['src/competitive/slice-worker-bootstrap.mjs', 'dist/src/competitive/slice-worker-bootstrap.mjs'],
  ['src/generated/gamefactory.binpb', 'dist/src/generated/gamefactory.binpb'],
  ['src/generated/grpc-health.binpb', 'dist/src/generated/grpc-health.binpb'],
];
for (const [from, to] of copies) cpSync(join(root, from), join(root, to), { recursive: true });

const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const file of Object.values(bin)) chmodSync(join(root, file), 0o755);
