/** Shards made wrong in one place, for the tests of how a corrupt shard index is reported. */
import { crc32c } from "../../scripts/lib/zarr-writer.mjs";

/**
 * `shard` with entry `slot` of its index (at its end: `entries` pairs of uint64 offset and length, then their
 * crc32c) set to `offset` and `length`, and the checksum made right again: only the entry is wrong.
 */
export function withIndexEntry(shard: Uint8Array, slot: number, offset: bigint, length: bigint, entries = 4): Buffer {
	const out = Buffer.from(shard);
	const indexStart = out.length - (entries * 16 + 4);
	out.writeBigUInt64LE(offset, indexStart + slot * 16);
	out.writeBigUInt64LE(length, indexStart + slot * 16 + 8);
	out.writeUInt32LE(crc32c(out.subarray(indexStart, out.length - 4)), out.length - 4);
	return out;
}
