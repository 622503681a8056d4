/**
 * Values known to hold no NaT: the decode threads scan a datetime64 chunk for NaT while it is still in their
 * WebAssembly memory (wasm/decoders.c `nat_free`), and the conversion then skips its own scan of those values, which
 * on the main thread read 8 MB from memory another core wrote (2–3 ms a chunk).
 *
 * What is known is tied to the view object, never to its buffer: a view is marked as it comes out of the decoder,
 * and the views cut from it (sliceValues, the bytes codec's typed array) are marked as they are cut. A buffer the
 * pool hands out again gets new views, so nothing said of the old chunk's bytes can reach the new ones. Anything
 * that makes values by arithmetic or copies them elsewhere makes unmarked views, which are scanned as before.
 */
const natFreeViews = new WeakSet<object>();

/** Records that `values` (a typed-array view, as decoded) holds no NaT in either byte order. */
export function markNatFree(values: ArrayBufferView): void {
	natFreeViews.add(values);
}

/** Whether `values` is known to hold no NaT: false when nothing is known. */
export function isNatFree(values: ArrayBufferView): boolean {
	return natFreeViews.has(values);
}

/** Marks `part`, a view of the same bytes as `whole` or of some of them, when `whole` is known to hold no NaT. */
export function inheritNatFree(whole: ArrayBufferView, part: ArrayBufferView): void {
	if (part !== whole && natFreeViews.has(whole)) natFreeViews.add(part);
}
