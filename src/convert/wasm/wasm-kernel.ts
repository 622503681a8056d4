import type { Rounding } from "../options.js";
import type { ConversionPlan } from "../plan.js";
import { ceilDiv, floorDiv } from "../bigint-division.js";
import { LINEAR_KERNEL_WASM_BASE64 } from "./linear-kernel-wasm.js";

/** The part of the WebAssembly JS API used here (the compiler's Node libraries do not declare it). */
interface WebAssemblyApi {
	Module: new (bytes: Uint8Array) => object;
	Instance: new (module: object) => { readonly exports: unknown };
}
const webAssembly = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

interface KernelExports {
	readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
	setMultiply(factor: bigint, min: bigint, max: bigint): void;
	/** `inexact`: 1 stops at a value that is not a whole number of divisors, 0 floors it, 2 rounds it to the nearest. */
	setDivide(divisor: bigint, inexact: number): void;
	multiply(from: number, to: number): number;
	divide(from: number, to: number): number;
	setAffine(factor: bigint, offset: bigint, min: bigint, max: bigint): void;
	setMarkers(count: number, marker0: bigint, marker1: bigint): void;
	affine(from: number, to: number): number;
	setAffineFloat(step: number, stepHigh: number, stepLow: number, count: number, marker0: number, marker1: number): void;
	affineFloat(from: number, to: number): number;
}

/** The integer arrays a kernel widens to int64 as it loads them. */
export type SmallIntegers = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;

/** Values copied into the module per window: 8 MiB of memory, whatever the batch. */
export const WASM_WINDOW_VALUES = 1 << 20;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** The markers an affine kernel stops at itself: more send the array to the general path. */
const AFFINE_MARKERS = 2;
const PAGE_BYTES = 65_536;
const INEXACT_MODE: Readonly<Record<Rounding, number>> = { error: 1, floor: 0, nearest: 2 };

let loaded: KernelExports | undefined;

/** The module is 300 bytes: compiled synchronously on first use, once per process. */
function kernelExports(): KernelExports {
	loaded ??= new webAssembly!.Instance(new webAssembly!.Module(Buffer.from(LINEAR_KERNEL_WASM_BASE64, "base64"))).exports as KernelExports;
	return loaded;
}

/**
 * The plans that are one multiplication or one floor division (D, h, m, s -> s/ms/us/ns, 10us -> us, ps -> ns...),
 * run with native int64 arithmetic in WebAssembly: three times the speed of the word arithmetic in JS, copies in
 * and out of the module's memory included. The batch goes through the module's memory window by window; each
 * window is converted in place there, stopping at every value the kernel cannot settle (NaT, overflow, a refused
 * truncation) for the caller to handle, then copied out.
 */
export class WasmLinearKernel {
	readonly #run: (from: number, to: number) => number;
	readonly #exports: KernelExports;

	private constructor(exports: KernelExports, run: (from: number, to: number) => number) {
		this.#exports = exports;
		this.#run = run;
	}

	static forPlan(plan: ConversionPlan, rounding: Rounding): WasmLinearKernel | null {
		if (plan.mode !== "linear" || webAssembly === undefined) return null;
		if (plan.q === 1n && plan.p > 1n && plan.p <= INT64_MAX) {
			const exports = kernelExports();
			const max = INT64_MAX / plan.p;
			exports.setMultiply(plan.p, -max, max);
			return new WasmLinearKernel(exports, (from, to) => exports.multiply(from, to));
		}
		if (plan.p === 1n && plan.q > 1n && plan.q <= INT64_MAX) {
			const exports = kernelExports();
			exports.setDivide(plan.q, INEXACT_MODE[rounding]);
			return new WasmLinearKernel(exports, (from, to) => exports.divide(from, to));
		}
		return null;
	}

	/**
	 * CF time's integer counts to instants: count * factor + offset (factor >= 1), stopping at each of `markers`
	 * (the missing-value markers, at most two) and at a count whose instant leaves int64 or is -2^63 (NaT's bits),
	 * for the caller to settle.
	 * Its parameters are the module's: set here, so a caller runs it before making another kernel.
	 */
	static forAffine(factor: bigint, offset: bigint, markers: readonly bigint[]): WasmLinearKernel | null {
		if (webAssembly === undefined || factor < 1n || factor > INT64_MAX || offset < INT64_MIN || offset > INT64_MAX || markers.length > AFFINE_MARKERS) return null;
		const exports = kernelExports();
		// The counts whose instant is in (-2^63, 2^63).
		const min = ceilDiv(INT64_MIN + 1n - offset, factor);
		const max = floorDiv(INT64_MAX - offset, factor);
		const clamp = (v: bigint) => (v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v);
		exports.setAffine(factor, offset, clamp(min), clamp(max));
		exports.setMarkers(markers.length, markers[0] ?? 0n, markers[1] ?? 0n);
		return new WasmLinearKernel(exports, (from, to) => exports.affine(from, to));
	}

	/** Copies values [start, end) of `in32` (two words each) into the module; returns a view of them there. */
	load(in32: Int32Array, start: number, end: number): Int32Array {
		const window = this.#window(end - start);
		window.set(in32.subarray(start * 2, end * 2));
		return window;
	}

	/** The words of `count` values at the start of the module's memory, grown to hold them. */
	#window(count: number): Int32Array {
		const bytes = count * 8;
		const memory = this.#exports.memory;
		if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE_BYTES));
		return new Int32Array(memory.buffer, 0, count * 2);
	}

	/**
	 * CF time's float counts to instants: count × step + offset where the double product is an exact whole number of
	 * at most 2^53 - 1 in magnitude (as decode-cf-times.ts's integer fast path takes it), stopping at each of `markers`
	 * (at most two), at NaN, at any other count and at an instant outside (-2^63, 2^63). The counts are doubles in the
	 * module's memory (loadDoubles), the instants written over them. `stepHigh`: the high half of the step as a
	 * double, split as the caller's exactness test splits it (exact-double.ts's veltkampHigh).
	 */
	static forAffineFloat(step: bigint, stepHigh: number, offset: bigint, markers: readonly number[]): WasmLinearKernel | null {
		if (webAssembly === undefined || step < 1n || step > BigInt(Number.MAX_SAFE_INTEGER) || offset < INT64_MIN || offset > INT64_MAX || markers.length > AFFINE_MARKERS) return null;
		const exports = kernelExports();
		const clamp = (v: bigint) => (v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v);
		// The products whose instant is in (-2^63, 2^63).
		exports.setAffine(1n, offset, clamp(INT64_MIN + 1n - offset), clamp(INT64_MAX - offset));
		const stepNumber = Number(step);
		exports.setAffineFloat(stepNumber, stepHigh, stepNumber - stepHigh, markers.length, markers[0] ?? 0, markers[1] ?? 0);
		return new WasmLinearKernel(exports, (from, to) => exports.affineFloat(from, to));
	}

	/** Copies floats [start, end) into the module as doubles (float32 ones widened exactly); returns their words. */
	loadDoubles(values: Float64Array | Float32Array, start: number, end: number): Int32Array {
		const window = this.#window(end - start);
		new Float64Array(window.buffer, 0, end - start).set(values.subarray(start, end));
		return window;
	}

	/**
	 * Copies integers [start, end) of an array of up to 32 bits into the module as int64 values (the low word the
	 * value's bits, the high one its sign); returns a view of their words there.
	 */
	loadWidened(values: SmallIntegers, start: number, end: number): Int32Array {
		const window = this.#window(end - start);
		for (let i = 0; i < end - start; i++) {
			const value = values[start + i];
			window[2 * i] = value | 0;
			window[2 * i + 1] = value < 0 ? -1 : 0;
		}
		return window;
	}

	/** Converts the loaded values from index `from` on; returns the index of the first it stopped at, or `to`. */
	run(from: number, to: number): number {
		return this.#run(from, to);
	}
}
