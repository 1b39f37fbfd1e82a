import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full collection between measurement rounds, so garbage left by one size is not collected
 * while timing another. Uses `global.gc` when node runs with --expose-gc; otherwise enables the
 * flag at run time and takes `gc` from a fresh context (vitest and tsx don't pass the flag).
 * Returns a no-op when neither works: medians absorb the odd collection.
 */
export function findCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    const fromContext: unknown = runInNewContext('gc');
    if (typeof fromContext === 'function') return fromContext as () => void;
  } catch {
    // Flags can be frozen in some embeddings; running without collections is fine.
  }
  return () => {};
}
