import type { ArrayToArrayCodec, CodecFactory } from "./codec.js";

/** The permutation a `transpose` configuration names ("C", "F" or a list), already checked to be one. */
export function permutationOf(order: unknown, rank: number): number[] {
	if (order === "F") return Array.from({ length: rank }, (_, i) => rank - 1 - i);
	if (Array.isArray(order)) return order as number[];
	return Array.from({ length: rank }, (_, i) => i);
}

/**
 * The `transpose` codec: the stored array's axis i is the chunk's axis `order[i]`, so the stored bytes are in C
 * order of the permuted shape. Decoding moves no value: it says where each value lies (the strides), and the
 * chunk decoder copies into C order once at the end, whatever codecs came before.
 */
export const transposeCodec: CodecFactory = (configuration, spec): ArrayToArrayCodec => {
	const order = permutationOf(configuration.order, spec.shape.length);
	return {
		kind: "array_to_array",
		encodedShape: order.map((axis) => spec.shape[axis]),
		decode(chunk) {
			// `chunk` is the stored array: its axis i is this codec's output axis order[i].
			const stride = new Array<number>(order.length);
			order.forEach((axis, i) => (stride[axis] = chunk.stride[i]));
			return { data: chunk.data, shape: spec.shape, stride };
		},
	};
};
