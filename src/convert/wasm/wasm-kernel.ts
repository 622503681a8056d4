import type { Rounding } from "../options.js";
import type { ConversionPlan } from "../plan.js";
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
}

/** Values copied into the module per window: 8 MiB of memory, whatever the batch. */
export const WASM_WINDOW_VALUES = 1 << 20;
const INT64_MAX = 2n ** 63n - 1n;
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

	/** Copies values [start, end) of `in32` (two words each) into the module; returns a view of them there. */
	load(in32: Int32Array, start: number, end: number): Int32Array {
		const bytes = (end - start) * 8;
		const memory = this.#exports.memory;
		if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE_BYTES));
		const window = new Int32Array(memory.buffer, 0, (end - start) * 2);
		window.set(in32.subarray(start * 2, end * 2));
		return window;
	}

	/** Converts the loaded values from index `from` on; returns the index of the first it stopped at, or `to`. */
	run(from: number, to: number): number {
		return this.#run(from, to);
	}
}
