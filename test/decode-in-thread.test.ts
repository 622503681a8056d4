/**
 * The fault tests (bombs, corrupt chunks, checksums) and the fuzz tests again, with zstd, lz4 and blosc decoded on
 * the calling thread (DT64_DECODE_THREADS=0, inherited by the CLI runs) instead of the decode threads: both paths
 * of src/zarr/codecs/off-thread.ts refuse the same inputs the same way.
 */
process.env.DT64_DECODE_THREADS = "0";
await import("./faults.test.js");
await import("./fuzz.test.js");
