// Bundles the example page's script for browsers with esbuild: `node example/bundle.mjs` writes
// example/dist/find-game.js beside a copy of index.html; serve example/dist/ and open it with
// ?coordinator=<the coordinator's --http-listen URL> (its http.corsOrigins must name the page's origin).
// The bundle is checked to hold no gRPC library: the browser entry reaches the coordinator with fetch.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The page's script as one ES module, and the package paths it was built from. */
export async function bundleExample() {
  const result = await build({
    entryPoints: [join(here, 'find-game.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const grpc = inputs.filter((path) => /@grpc\/|node:/.test(path));
  if (grpc.length > 0) throw new Error(`the browser bundle must not hold grpc-js or Node modules: ${grpc.join(', ')}`);
  return { js: result.outputFiles[0].text, inputs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { js } = await bundleExample();
  const out = join(here, 'dist');
  mkdirSync(out, { recursive: true });
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(out, 'find-game.js'), js);
  copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
  console.log(`example/dist: index.html and find-game.js (${js.length} bytes)`);
}
