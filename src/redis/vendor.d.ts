// The type shape of cluster-key-slot (untyped CJS; ioredis' own slot function, the same version).
declare module 'cluster-key-slot' {
  /** The Redis Cluster slot of a key (its hash tag's, when it has one). */
  function generate(key: string): number;
  export = generate;
}
