/**
 * A copy of `bytes` in memory of its own, at offset 0 of its buffer. `bytes.slice()` is not one when the bytes are a
 * Node Buffer (what the stores and the buffer pool hand out, and what a library caller may pass): Buffer's `slice`
 * is a view of the same memory, at the same (perhaps unaligned) offset.
 */
export function copyOfBytes(bytes: Uint8Array): Uint8Array {
	return new Uint8Array(bytes);
}
