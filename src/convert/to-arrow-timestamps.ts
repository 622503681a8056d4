import { formatDatetime64Type, type Datetime64Type } from "../dtype/datetime64.js";
import { NAT } from "../dtype/fill-value.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError } from "../errors.js";
import { copyOfBytes } from "../memory/copy-of-bytes.js";
import { floorDiv, roundHalfEvenDiv } from "./bigint-division.js";
import { daysFromMonths, daysFromMonthsBig } from "./calendar.js";
import { addWords, floorDivideWords, loadSafeInteger, multiplyWords, words, wordsToBigInt, wordsToNumber } from "./int64-words.js";
import { normalizeConversionOptions, type ConversionOptions, type Rounding } from "./options.js";
import { checkCounts, checkSourceType, convertOptionsArgument } from "./core-arguments.js";
import { linearKernel } from "./linear-kernel.js";
import { natPositionsOf } from "./nat-positions.js";
import { WASM_WINDOW_VALUES, WasmLinearKernel } from "./wasm/wasm-kernel.js";
import { planConversion, type ConversionPlan } from "./plan.js";

/** Arrow timestamp data for one batch: int64 values, a validity bitmap (LSB first) or null when all valid. */
export interface TimestampValues {
	readonly unit: TargetUnit;
	readonly values: BigInt64Array;
	readonly validity: Uint8Array | null;
	readonly nullCount: number;
	/** The positions made null because they overflowed (`onOverflow: "null"`), in order; absent when none did. */
	readonly overflowed?: readonly number[];
}

/** toArrowTimestamps' options, as a library user gives them (README, Library): the conversion options. */
export type ConvertOptions = ConversionOptions;

/** The package's own conversion (inspect's): the public options, and how messages name a value's position. */
export interface ConvertSettings extends ConvertOptions {
	/** Describes the position of the i-th value of this batch in messages; defaults to `index i`. */
	describePosition?: (index: number) => string;
}

/**
 * A value a conversion refuses (code TRUNCATION, OVERFLOW or VALUE_INVALID): the message names the value and its
 * position; `index` is its position in the batch, `count` (also `value`) the stored count (a datetime64's int64, a
 * bigint; a CF time count as stored, see CfDecodeError), `unit` the target unit. Every refusal of a value, of
 * datetime64 and CF time alike, is one, so that one `instanceof` catches them all.
 */
export class ConversionError extends Dt64ExportError {
	declare readonly index: number;
	readonly count: bigint | number;
	/**
	 * For an OVERFLOW in a unit finer than s: whether a coarser unit holds the value (s does), so that the CLI
	 * suggests one only where it helps (±Infinity, 10^15 days are outside every unit). Undefined when not known.
	 */
	readonly coarserUnitHolds?: boolean;

	constructor(code: "TRUNCATION" | "OVERFLOW" | "VALUE_INVALID", message: string, index: number, count: bigint | number, unit: TargetUnit, coarserUnitHolds?: boolean) {
		super(code, message, { index, value: count, unit });
		this.name = "ConversionError";
		this.count = count;
		if (coarserUnitHolds !== undefined) this.coarserUnitHolds = coarserUnitHolds;
	}
}

const TWO_62 = 2 ** 62;
const TWO_52 = 2 ** 52;
const MONTHS_LIMIT = 2 ** 43;
const INT32_MIN = -2_147_483_648;

type Outcome = "ok" | "truncated" | "overflow";

/**
 * Converts int64 counts of a datetime64 type into Arrow timestamp values: NaT becomes null, each value its instant
 * in the target unit (a value between two units refused, floored or rounded to the nearest, ties to even, as
 * `rounding` says), exact for every int64 (see the conversion contract in DESIGN.md).
 *
 * `counts` is what the codecs produce: a BigInt64Array or the raw little-endian bytes. When the source unit is
 * the target unit the values buffer is the input itself, only scanned for NaT.
 */
export function toArrowTimestamps(counts: BigInt64Array | Uint8Array, source: Datetime64Type, options: ConvertOptions | null = {}): TimestampValues {
	checkCounts(counts);
	checkSourceType(source);
	return convertTimestamps(counts, source, convertOptionsArgument(options));
}

/** toArrowTimestamps with the package's own settings (see ConvertSettings). */
export function convertTimestamps(counts: BigInt64Array | Uint8Array, source: Datetime64Type, options: ConvertSettings): TimestampValues {
	const normalized = normalizeConversionOptions(options);
	return convertWithPlan(asBigInt64Array(counts), planConversion(source, normalized.unit), {
		...normalized,
		describePosition: options.describePosition,
	});
}

function asBigInt64Array(counts: BigInt64Array | Uint8Array): BigInt64Array {
	if (counts instanceof BigInt64Array) return counts;
	if (counts.byteLength % 8 !== 0) {
		throw new Dt64ExportError("CHUNK_CORRUPT", `int64 data of ${counts.byteLength} bytes is not a whole number of 8-byte values`);
	}
	const aligned = counts.byteOffset % 8 === 0 ? counts : copyOfBytes(counts);
	return new BigInt64Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 8);
}

interface ResolvedOptions {
	rounding: Rounding;
	onOverflow: "error" | "null";
	describePosition?: (index: number) => string;
	/**
	 * Write the converted values over the input instead of a new buffer: for a caller that owns the input and
	 * drops it (the export pipeline), this saves a buffer per batch. Values under nulls are then left as they were.
	 */
	inPlace?: boolean;
	/** Where a validity bitmap's memory comes from (its content is set here): by default a new Uint8Array. */
	allocateBitmap?: (bytes: number) => Uint8Array;
}

export function convertWithPlan(input: BigInt64Array, plan: ConversionPlan, options: ResolvedOptions): TimestampValues {
	const length = input.length;
	const in32 = new Int32Array(input.buffer, input.byteOffset, length * 2);
	if (plan.mode === "passthrough") {
		const nulls = new NullMask(length, options.allocateBitmap);
		// Where a decode thread said where NaT may be (nat-positions.ts), only those values are checked.
		const candidates = natPositionsOf(input);
		if (candidates === undefined) markNaT(in32, length, nulls);
		else markNaTAt(in32, candidates, nulls);
		return { unit: plan.target, values: input, validity: nulls.bitmap(), nullCount: nulls.count };
	}
	// Every loop below reads a value before it writes the same position, and a refused value is read before any
	// write to it, so the output may be the input.
	const values = options.inPlace === true ? input : new BigInt64Array(length);
	const out32 = options.inPlace === true ? in32 : new Int32Array(values.buffer, values.byteOffset, length * 2);
	const nulls = new NullMask(length, options.allocateBitmap);
	const refuse = (i: number, outcome: "truncated" | "overflow" | "generic"): never => {
		const count = wordsToBigInt(in32[2 * i + 1], in32[2 * i]);
		const code = outcome === "truncated" ? "TRUNCATION" : outcome === "overflow" ? "OVERFLOW" : "VALUE_INVALID";
		const coarserHolds = outcome === "overflow" && plan.target !== "s" ? convertCountExactly(count, planConversion(plan.source, "s"), "floor") !== "overflow" : undefined;
		throw new ConversionError(code, describeRefusal(count, plan, outcome, options.describePosition?.(i) ?? `index ${i}`), i, count, plan.target, coarserHolds);
	};
	if (plan.mode === "generic") {
		markNaT(in32, length, nulls);
		if (nulls.count !== length) refuse(firstValid(in32, length), "generic");
		return { unit: plan.target, values, validity: nulls.bitmap(), nullCount: nulls.count };
	}
	const rounding = options.rounding;
	const refuseInexact = rounding === "error";
	const overflowToNull = options.onOverflow === "null";
	const overflowed: number[] = [];
	const convert = valueConverter(plan, rounding);
	/**
	 * The general path for the value at index i, for what the kernels leave: NaT, a refusal, null for an overflow,
	 * or the exact arithmetic (BigInt for the rare values whose intermediate product leaves int64). The result's
	 * words go to `target[2 * at]` and `target[2 * at + 1]`.
	 */
	const settle = (i: number, target: Int32Array, at: number): void => {
		const lo = in32[2 * i];
		const hi = in32[2 * i + 1];
		if (hi === INT32_MIN && lo === 0) {
			nulls.set(i);
			return;
		}
		words.hi = hi;
		words.lo = lo >>> 0;
		const outcome = convert();
		if (outcome === "overflow") {
			if (overflowToNull) {
				nulls.set(i);
				overflowed.push(i);
				return;
			}
			refuse(i, "overflow");
		}
		if (outcome === "truncated" && refuseInexact) refuse(i, "truncated");
		target[2 * at] = words.lo | 0;
		target[2 * at + 1] = words.hi;
	};
	const wasm = WasmLinearKernel.forPlan(plan, rounding);
	if (wasm !== null) {
		// In place, a window's input is only overwritten when the window is copied out, after it is settled.
		for (let start = 0; start < length; start += WASM_WINDOW_VALUES) {
			const end = Math.min(length, start + WASM_WINDOW_VALUES);
			const window = wasm.load(in32, start, end);
			for (let i = wasm.run(0, end - start); i < end - start; i = wasm.run(i + 1, end - start)) settle(start + i, window, i);
			out32.set(window, 2 * start);
		}
		return { unit: plan.target, values, validity: nulls.bitmap(), nullCount: nulls.count, ...(overflowed.length > 0 && { overflowed }) };
	}
	const kernel = plan.mode === "linear" ? linearKernel(plan, rounding) : null;
	const onNaT = (i: number) => nulls.set(i);
	for (let i = 0; i < length; i++) {
		// The kernel runs until a value it cannot settle alone; that value takes the general path.
		if (kernel !== null) {
			i = kernel(in32, out32, i, length, onNaT);
			if (i === length) break;
		}
		settle(i, out32, i);
	}
	return { unit: plan.target, values, validity: nulls.bitmap(), nullCount: nulls.count, ...(overflowed.length > 0 && { overflowed }) };
}

/** The Arrow validity bitmap of a batch, allocated at its first null (LSB first, padding bits zero). */
class NullMask {
	count = 0;
	#bits: Uint8Array | null = null;

	constructor(
		readonly length: number,
		readonly allocate: (bytes: number) => Uint8Array = (bytes) => new Uint8Array(bytes),
	) {}

	set(i: number): void {
		if (this.#bits === null) this.#bits = this.allocate((this.length + 7) >> 3).fill(0xff);
		this.#bits[i >> 3] &= ~(1 << (i & 7));
		this.count++;
	}

	bitmap(): Uint8Array | null {
		if (this.#bits !== null) clearPaddingBits(this.#bits, this.length);
		return this.#bits;
	}
}

/** Marks every NaT; a tight loop over the high words, since a NaT's high word is rare in real data. */
function markNaT(in32: Int32Array, length: number, nulls: NullMask): void {
	for (let i = 0; i < length; i++) {
		if (in32[2 * i + 1] === INT32_MIN && in32[2 * i] === 0) nulls.set(i);
	}
}

/** Marks the NaT among the values at `candidates` (increasing positions): the others are known not to be NaT. */
function markNaTAt(in32: Int32Array, candidates: Int32Array, nulls: NullMask): void {
	for (let k = 0; k < candidates.length; k++) {
		const i = candidates[k];
		if (in32[2 * i + 1] === INT32_MIN && in32[2 * i] === 0) nulls.set(i);
	}
}

function firstValid(in32: Int32Array, length: number): number {
	let i = 0;
	while (i < length && in32[2 * i + 1] === INT32_MIN && in32[2 * i] === 0) i++;
	return i;
}

/** Arrow requires nothing of the bits past the end, but clean zeros make the output byte-reproducible. */
function clearPaddingBits(validity: Uint8Array, length: number): void {
	if (length & 7) validity[length >> 3] &= (1 << (length & 7)) - 1;
}

/**
 * Returns the per-value step for a plan: it converts the value in `words` in place. Rounding to the nearest adds
 * half a divisor before the floor division (floor((x·p + h) / q), h = floor(q / 2)); a quotient that was exactly a
 * tie (an even q, no remainder) is then odd one time in two and steps back to the even one.
 */
function valueConverter(plan: ConversionPlan, rounding: Rounding): () => Outcome {
	const multiplyBy = plan.multiplyBy;
	const divideBy = plan.divideBy;
	const pApprox = Number(plan.p);
	const multiplyAll = (): boolean => {
		for (let k = 0; k < multiplyBy.length; k++) if (!multiplyWords(multiplyBy[k])) return false;
		return true;
	};
	const floorDivideAll = (): Outcome => {
		let remainder = 0;
		for (let k = 0; k < divideBy.length; k++) remainder += floorDivideWords(divideBy[k]);
		return remainder === 0 ? "ok" : "truncated";
	};
	const half = plan.q / 2n;
	const halfHi = Number(half >> 32n);
	const halfLo = Number(half & 0xffffffffn);
	const evenDivisor = plan.q % 2n === 0n;
	const divideAll =
		rounding !== "nearest"
			? floorDivideAll
			: (): Outcome => {
					// x + h may leave int64 where the quotient does not: the exact path settles it.
					if (!addWords(halfHi, halfLo)) return exactLinear(plan, rounding);
					if (floorDivideAll() === "ok" && evenDivisor && words.lo % 2 === 1) words.lo -= 1;
					return "ok";
				};
	if (plan.mode === "calendar") {
		const monthsPerCount = plan.monthsPerCount;
		return () => {
			const count = wordsToNumber();
			if (Math.abs(count) >= TWO_52) return "overflow";
			const months = count * monthsPerCount;
			if (Math.abs(months) >= MONTHS_LIMIT) return "overflow";
			loadSafeInteger(daysFromMonths(months));
			return multiplyAll() ? "ok" : "overflow";
		};
	}
	if (divideBy.length === 0) return () => (multiplyAll() ? "ok" : "overflow");
	if (multiplyBy.length === 0) return divideAll;
	return () => {
		// The product may leave int64 even when the quotient does not: those rare values take the exact path.
		if (Math.abs(wordsToNumber() * pApprox) >= TWO_62) return exactLinear(plan, rounding);
		multiplyAll();
		return divideAll();
	};
}

function exactLinear(plan: ConversionPlan, rounding: Rounding): Outcome {
	const result = convertCountExactly(wordsToBigInt(words.hi, words.lo), plan, rounding);
	if (result === "overflow") return "overflow";
	words.hi = Number(BigInt.asIntN(32, result.value >> 32n));
	words.lo = Number(BigInt.asUintN(32, result.value));
	return result.exact ? "ok" : "truncated";
}

const INT64_MIN_VALID = NAT + 1n;
const INT64_MAX = -NAT - 1n;

/**
 * The conversion of one non-NaT count with BigInt arithmetic: the slow path for values the word arithmetic
 * cannot take, and the wording of messages. `exact`: the instant is a whole number of target units; the value is
 * its floor, or with `nearest` the nearest unit (ties to even). Overflow is that of the value given.
 */
function convertCountExactly(count: bigint, plan: ConversionPlan, rounding: Rounding = "floor"): { value: bigint; exact: boolean } | "overflow" {
	let numerator: bigint;
	const q = plan.q;
	if (plan.mode === "calendar") {
		numerator = daysFromMonthsBig(count * BigInt(plan.monthsPerCount)) * plan.p;
	} else {
		numerator = count * plan.p;
	}
	const floored = floorDiv(numerator, q);
	const value = rounding === "nearest" ? roundHalfEvenDiv(numerator, q) : floored;
	if (value < INT64_MIN_VALID || value > INT64_MAX) return "overflow";
	return { value, exact: floored * q === numerator };
}

function describeRefusal(count: bigint, plan: ConversionPlan, outcome: "truncated" | "overflow" | "generic", position: string): string {
	const what = `value ${count} of ${formatDatetime64Type(plan.source)} at ${position}`;
	if (outcome === "generic") {
		return `${what}: a generic datetime64 (no unit) can only hold NaT`;
	}
	if (outcome === "overflow") {
		return `${what} is outside the int64 range in unit ${plan.target}`;
	}
	const floored = convertCountExactly(count, plan, "floor");
	const nearest = convertCountExactly(count, plan, "nearest");
	return `${what} is not a whole number of ${plan.target}${floorAndNearest(floored, nearest, plan.target)}`;
}

/** What flooring and rounding would make of a refused value, for its message: ` (it would be floored to 1 s, or rounded to the nearest, 2 s)`. */
export function floorAndNearest(floored: { value: bigint } | "overflow", nearest: { value: bigint } | "overflow", unit: TargetUnit): string {
	if (floored === "overflow") return "";
	const rounded = nearest === "overflow" ? "outside int64" : `${nearest.value} ${unit}`;
	return ` (it would be floored to ${floored.value} ${unit}, or rounded to the nearest, ${rounded})`;
}
