/**
 * Where the NaT of decoded values may be: the decode threads scan a datetime64 chunk for NaT while it is still in
 * their WebAssembly memory (wasm/decoders.c `nat_positions`) and hand back the positions of the values that are NaT
 * in either byte order, and the conversion then checks those values only, instead of scanning the chunk (8 MB read
 * on the main thread from memory another core wrote: 2–3 ms a 1M-value chunk). An empty list: no NaT at all.
 *
 * What is known is tied to the view object, never to its buffer: recorded on a view as it comes out of the decoder,
 * carried to the views cut from it (the bytes codec's values, sliceValues), and never to a buffer the pool hands out
 * again, which gets new views. Anything that makes values by arithmetic or copies them elsewhere makes views with
 * nothing recorded, which are scanned as before.
 */
const recorded = new WeakMap<object, Int32Array>();

/**
 * Records, for the 8-byte values of `values`, the increasing positions of every value that may be NaT: every NaT
 * must be among them (others may be, the conversion checks each).
 */
export function recordNatPositions(values: ArrayBufferView, positions: Int32Array): void {
	recorded.set(values, positions);
}

/** The positions recorded for `values` (see recordNatPositions), or undefined when nothing is known. */
export function natPositionsOf(values: ArrayBufferView): Int32Array | undefined {
	return recorded.get(values);
}

/** Records for `part`, the values [start, end) of `whole` (views of the same bytes), what is known of `whole`. */
export function inheritNatPositions(whole: ArrayBufferView, part: ArrayBufferView, start: number, end: number): void {
	const positions = recorded.get(whole);
	if (positions === undefined || part === whole) return;
	const within = positions.subarray(lowerBound(positions, start), lowerBound(positions, end));
	if (start === 0) {
		recorded.set(part, within);
		return;
	}
	// A plain loop: Int32Array.from with a mapping function took 100 ns a position (20 ms in a 3-D export).
	const shifted = new Int32Array(within.length);
	for (let k = 0; k < within.length; k++) shifted[k] = within[k] - start;
	recorded.set(part, shifted);
}

/** The first index of the sorted `positions` holding `value` or more. */
function lowerBound(positions: Int32Array, value: number): number {
	let low = 0;
	let high = positions.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (positions[middle] < value) low = middle + 1;
		else high = middle;
	}
	return low;
}
