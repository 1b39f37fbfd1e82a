import { describe, it } from 'vitest';

/**
 * A contract: one table of cases that any adapter of a port must pass. The in-process adapters
 * run it here; a shared-store adapter (Redis) runs the very same table with its own factory.
 * `make` builds a fresh, empty adapter per case (or per node, for cases that model several
 * coordinators sharing one store: call it with the same `shared` handle for each node).
 */
export interface ContractCase<Adapter> {
  readonly name: string;
  run(make: () => Promise<Adapter> | Adapter): Promise<void>;
}

export function runContract<Adapter>(port: string, adapter: string, cases: readonly ContractCase<Adapter>[], make: () => Promise<Adapter> | Adapter): void {
  describe(`${port} contract: ${adapter}`, () => {
    for (const c of cases) it(c.name, () => c.run(make));
  });
}
