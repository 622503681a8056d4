/**
 * Sharded arrays read a shard at a time, decoded on the calling thread (DT64_DECODE_THREADS=0: the shard's buffer
 * is the pool's ArrayBuffer), through a poisoning pool and without one: see test/support/shard-pool-differential.ts.
 */
process.env.DT64_DECODE_THREADS = "0";
const { describeShardPoolDifferential } = await import("./support/shard-pool-differential.js");
describeShardPoolDifferential("0");
