/**
 * Rows of record batches copied into columns of their own, which grow as rows are added: what a dataset writer
 * holds of a partition whose file is not open. A slice would keep its whole batch alive, and with rows of many
 * partitions interleaved, every batch since the partition was last written; a copy holds only its own rows, so
 * `bytes` is the memory it takes (capacity included).
 */
import { type Data, DataType, makeData, RecordBatch, type Schema, Struct } from "apache-arrow";
import { Dt64ExportError } from "../errors.js";
import { isFixedWidth, strideOf } from "./fixed-width.js";
import { grownBits, setBit, Validity } from "./validity-bits.js";
import type { BufferPool } from "../memory/buffer-pool.js";

/**
 * Rows the columns first make room for; then the room doubles. Small, because a writer may hold rows of thousands
 * of partitions (hours over a year) with a few rows each; a multiple of 8, so that bits fill whole bytes.
 */
const FIRST_CAPACITY = 8;
/** What a column's objects and arrays take beside their elements (an estimate of V8's headers), counted in `bytes`. */
const COLUMN_OVERHEAD = 256;
/** Utf8 and Binary offsets are int32. */
const MAX_VARIABLE_BYTES = 2 ** 31 - 1;

type FixedWidthArray = BigInt64Array | BigUint64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array;
type FixedWidthArrayType = { new (length: number): FixedWidthArray; new (buffer: ArrayBuffer, byteOffset: number, length: number): FixedWidthArray; readonly BYTES_PER_ELEMENT: number };

function grown(capacity: number, needed: number): number {
	let next = Math.max(capacity, FIRST_CAPACITY);
	while (next < needed) next *= 2;
	return next;
}

function bitAt(bits: Uint8Array, index: number): number {
	return (bits[index >> 3] >> (index & 7)) & 1;
}

function copyBits(from: Uint8Array, fromIndex: number, to: Uint8Array, toIndex: number, count: number): void {
	for (let i = 0; i < count; i++) setBit(to, toIndex + i, bitAt(from, fromIndex + i));
}

/**
 * The values of one column (validity aside), copied row runs at a time. `resize` and `copy` return the bytes they
 * added, so that the rows' memory is counted as it grows rather than summed over the columns at every run.
 */
interface ColumnValues {
	/** Makes room for `capacity` rows in all (more than now). */
	resize(capacity: number): number;
	/** Copies rows [from, to) of `data` to rows [at, at + to - from), within the capacity. */
	copy(data: Data, from: number, to: number, at: number): number;
	/** The Arrow data of the first `length` rows, with the validity given. */
	finish(length: number, nullCount: number, nullBitmap: Uint8Array | undefined): Data;
}

/** Values of a fixed number of elements each (`stride`): integers, floats, timestamps, durations, dates, decimals. */
class FixedWidthValues implements ColumnValues {
	#values: FixedWidthArray;

	constructor(
		readonly type: DataType,
		readonly stride: number,
		readonly arrayType: FixedWidthArrayType,
		readonly pool?: BufferPool,
	) {
		this.#values = new arrayType(0);
	}

	resize(capacity: number): number {
		const length = capacity * this.stride;
		const pool = this.pool;
		const next = pool === undefined ? new this.arrayType(length) : new this.arrayType(pool.acquire(length * this.arrayType.BYTES_PER_ELEMENT).buffer as ArrayBuffer, 0, length);
		next.set(this.#values as never);
		const before = this.#values;
		const added = next.byteLength - before.byteLength;
		this.#values = next;
		if (pool !== undefined && before.byteLength > 0) pool.release(new Uint8Array(before.buffer, before.byteOffset, before.byteLength));
		return added;
	}

	copy(data: Data, from: number, to: number, at: number): number {
		// A slice's value buffer starts at its first row (apache-arrow slices it): no offset to add.
		const source = data.values as FixedWidthArray;
		const stride = this.stride;
		if ((to - from) * stride <= 8) for (let i = from * stride, j = at * stride; i < to * stride; i++, j++) this.#values[j] = source[i];
		else this.#values.set(source.subarray(from * stride, to * stride) as never, at * stride);
		return 0;
	}

	/**
	 * Copies `runs` of rows of `data` one after another from row `at`, within the capacity: short runs (a time filter's
	 * between two missing times) word by word, without a view per run or a BigInt per value of an int64 array.
	 */
	copyRuns(data: Data, runs: readonly (readonly [number, number])[], at: number): void {
		const source = data.values as FixedWidthArray;
		if (source.BYTES_PER_ELEMENT < 4) {
			for (const [from, to] of runs) at += (this.copy(data, from, to, at), to - from);
			return;
		}
		const rowWords = (this.stride * source.BYTES_PER_ELEMENT) / 4;
		const words = new Int32Array(this.#values.buffer, this.#values.byteOffset, this.#values.byteLength / 4);
		const sourceWords = new Int32Array(source.buffer, source.byteOffset, source.byteLength / 4);
		let j = at * rowWords;
		for (const [from, to] of runs) {
			const count = (to - from) * rowWords;
			if (count > SHORT_RUN_WORDS) words.set(sourceWords.subarray(from * rowWords, to * rowWords), j);
			else for (let i = from * rowWords, end = to * rowWords, k = j; i < end; i++, k++) words[k] = sourceWords[i];
			j += count;
		}
	}

	finish(length: number, nullCount: number, nullBitmap: Uint8Array | undefined): Data {
		const data = this.#values.subarray(0, length * this.stride);
		// The pool's buffer is then exactly the values the batch holds: written, it comes back whole.
		this.pool?.shorten(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
		return makeData({ type: this.type, length, nullCount, nullBitmap, data } as never);
	}
}

/** 32-bit words of a run at most copied one by one by copyRuns; longer runs are copied by a view and `set`. */
const SHORT_RUN_WORDS = 64;

/** Booleans: one bit each, as Arrow keeps them. */
class BoolValues implements ColumnValues {
	#bits = new Uint8Array(0);

	constructor(readonly type: DataType) {}

	resize(capacity: number): number {
		const before = this.#bits.byteLength;
		this.#bits = grownBits(this.#bits, capacity);
		return this.#bits.byteLength - before;
	}

	copy(data: Data, from: number, to: number, at: number): number {
		// Bits are not sliced by apache-arrow: a slice keeps its offset into them.
		copyBits(data.values as Uint8Array, data.offset + from, this.#bits, at, to - from);
		return 0;
	}

	finish(length: number, nullCount: number, nullBitmap: Uint8Array | undefined): Data {
		return makeData({ type: this.type, length, nullCount, nullBitmap, data: this.#bits.subarray(0, Math.ceil(length / 8)) } as never);
	}
}

/** Utf8 and Binary: int32 offsets into bytes, which grow on their own. */
class VariableWidthValues implements ColumnValues {
	#offsets = new Int32Array(1);
	#bytes = new Uint8Array(0);
	#byteLength = 0;

	constructor(
		readonly type: DataType,
		readonly column: string,
	) {}

	resize(capacity: number): number {
		const next = new Int32Array(capacity + 1);
		next.set(this.#offsets);
		const added = next.byteLength - this.#offsets.byteLength;
		this.#offsets = next;
		return added;
	}

	copy(data: Data, from: number, to: number, at: number): number {
		// A slice's offsets start at its first row and point into the whole batch's bytes (apache-arrow slices them so).
		const offsets = data.valueOffsets as Int32Array;
		const start = offsets[from];
		const end = offsets[to];
		const total = this.#byteLength + (end - start);
		if (total > MAX_VARIABLE_BYTES) throw new Dt64ExportError("TOO_LARGE", `column "${this.column}": more than 2 GiB of text held for one partition, too much for one Arrow batch`);
		let added = 0;
		if (total > this.#bytes.length) {
			const next = new Uint8Array(Math.min(MAX_VARIABLE_BYTES, grown(this.#bytes.length, total)));
			next.set(this.#bytes.subarray(0, this.#byteLength));
			added = next.byteLength - this.#bytes.byteLength;
			this.#bytes = next;
		}
		this.#bytes.set((data.values as Uint8Array).subarray(start, end), this.#byteLength);
		for (let i = from; i < to; i++) this.#offsets[at + i - from + 1] = this.#byteLength + offsets[i + 1] - start;
		this.#byteLength = total;
		return added;
	}

	finish(length: number, nullCount: number, nullBitmap: Uint8Array | undefined): Data {
		const valueOffsets = this.#offsets.subarray(0, length + 1);
		return makeData({ type: this.type, length, nullCount, nullBitmap, valueOffsets, data: this.#bytes.subarray(0, this.#byteLength) } as never);
	}
}

function columnValues(type: DataType, stride: number, arrayType: unknown, column: string, pool: BufferPool | undefined): ColumnValues {
	if (DataType.isBool(type)) return new BoolValues(type);
	if (DataType.isUtf8(type) || DataType.isBinary(type)) return new VariableWidthValues(type, column);
	if (isFixedWidth(type)) return new FixedWidthValues(type, stride, arrayType as FixedWidthArrayType, pool);
	throw new Dt64ExportError("INTERNAL", `column "${column}": rows of Arrow type ${type} cannot be held for a partition`);
}

export class CopiedRows {
	readonly #values: ColumnValues[];
	readonly #validity: Validity[];
	#rows = 0;
	/** Rows every column has room for. */
	#capacity = 0;
	#bytes: number;

	/**
	 * `pool`: fixed-width values are held in its buffers, for a batch that is written once and handed back (the time
	 * filter's): they come back whole once written, as a chunk's do. Not for rows held long (a dataset writer's).
	 */
	constructor(
		readonly schema: Schema,
		pool?: BufferPool,
	) {
		this.#values = schema.fields.map((field) => columnValues(field.type, strideOf(field.type), field.type.ArrayType, field.name, pool));
		this.#validity = schema.fields.map(() => new Validity());
		this.#bytes = this.#values.length * COLUMN_OVERHEAD;
	}

	get rows(): number {
		return this.#rows;
	}

	/** The memory the copies take, room for more rows included. */
	get bytes(): number {
		return this.#bytes;
	}

	/**
	 * Copies `runs` of rows of `batch` ([from, to), in order), after the rows held: one allocation per column for all
	 * of them, and short runs copied without a view each (the time filter's runs between missing times: 184,000 runs
	 * of a hundred rows in an export of 18M rows).
	 */
	appendRuns(batch: RecordBatch, runs: readonly (readonly [number, number])[]): void {
		const added = runs.reduce((sum, [from, to]) => sum + (to - from), 0);
		if (added === 0) return;
		const rows = this.#rows + added;
		// Exactly the rows (a multiple of 8, as every capacity: bits fill whole bytes), not the next doubling.
		if (rows > this.#capacity) this.#growTo(Math.ceil(rows / 8) * 8);
		const columns = batch.data.children;
		for (let c = 0; c < columns.length; c++) {
			const values = this.#values[c];
			const fixed = values instanceof FixedWidthValues;
			if (fixed) values.copyRuns(columns[c], runs, this.#rows);
			let at = this.#rows;
			for (const [from, to] of runs) {
				if (!fixed) this.#bytes += values.copy(columns[c], from, to, at);
				this.#bytes += this.#validity[c].copy(columns[c], from, to, at);
				at += to - from;
			}
		}
		this.#rows = rows;
	}

	/** Makes room for `capacity` rows in every column (more than now), counting the bytes added. */
	#growTo(capacity: number): void {
		this.#capacity = capacity;
		for (let c = 0; c < this.#values.length; c++) this.#bytes += this.#values[c].resize(capacity) + this.#validity[c].resize(capacity);
	}

	/** Copies rows [from, to) of `batch`, whose schema is this one's, after the rows held; returns how much `bytes` grew. */
	append(batch: RecordBatch, from: number, to: number): number {
		if (to <= from) return 0;
		const rows = this.#rows + (to - from);
		const before = this.#bytes;
		if (rows > this.#capacity) this.#growTo(grown(this.#capacity, rows));
		const columns = batch.data.children;
		for (let c = 0; c < columns.length; c++) this.#bytes += this.#values[c].copy(columns[c], from, to, this.#rows) + this.#validity[c].copy(columns[c], from, to, this.#rows);
		this.#rows = rows;
		return this.#bytes - before;
	}

	/** The rows held, as one batch of this schema (sharing this object's memory: append no more rows after). */
	toBatch(): RecordBatch {
		const length = this.#rows;
		const children = this.#values.map((values, c) => values.finish(length, this.#validity[c].nullCount, this.#validity[c].bitmap(length)));
		return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children }));
	}
}
