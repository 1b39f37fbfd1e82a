import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace packages are read from their sources through tsconfig.json's paths.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'perf/**/*.test.ts'],
    // Integration tests start real gRPC servers on loopback; the perf suite times work.
    // Both are happier without another suite competing for the 2 cores.
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
