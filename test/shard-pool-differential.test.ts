/**
 * Sharded arrays read a shard at a time, decoded on decode threads (into a SharedArrayBuffer of the pool), through a
 * poisoning pool and without one: see test/support/shard-pool-differential.ts. Set before any decode thread starts
 * (a process's threads are set once).
 */
process.env.DT64_DECODE_THREADS = "2";
const { describeShardPoolDifferential } = await import("./support/shard-pool-differential.js");
describeShardPoolDifferential("2");
