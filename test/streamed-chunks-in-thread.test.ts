/**
 * test/streamed-chunks.test.ts again with the chunks streamed on the calling thread (DT64_DECODE_THREADS=0) instead of a
 * decode thread: both paths of codecs/off-thread.ts's streamZstdRow give the same files and refuse the same chunks.
 */
process.env.DT64_DECODE_THREADS = "0";
await import("./streamed-chunks.test.js");
