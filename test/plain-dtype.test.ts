/**
 * Plain data types of companion columns: fill values read exactly (64-bit integers from the JSON text, floats
 * with their special and hex forms), missing chunks filled bit for bit, strings checked as they are decoded, and
 * the programmatic table API (options checked before any read).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages, exportTable, openTable } from "../src/index.js";
import { Dt64ExportError, UsageError } from "../src/errors.js";
import { parsePlainDataType, parsePlainFillValue } from "../src/zarr/plain-dtype.js";
import { tempDir } from "./support/cli.js";

const work = tempDir("dt64-plain-");
let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);

const fillOf = (type: string, text: string) => parsePlainFillValue(text, parsePlainDataType(type));
/** The bits of each value: of the view's own values, which may be a part of a larger buffer (a column read from IPC bytes). */
const bitsOf = (values: Float32Array | Float64Array) =>
	Array.from(values instanceof Float32Array ? new Uint32Array(values.buffer, values.byteOffset, values.length) : new BigUint64Array(values.buffer, values.byteOffset, values.length));

describe("fill values", () => {
	it("reads 64-bit integers exactly, from the JSON text", () => {
		expect(fillOf("int64", "9007199254740993")).toEqual({ kind: "integer", value: 9007199254740993n });
		expect(fillOf("uint64", "18446744073709551615")).toEqual({ kind: "integer", value: 2n ** 64n - 1n });
		expect(Array.from(parsePlainDataType("int64").fillChunk(2, fillOf("int64", "-9223372036854775808")) as BigInt64Array)).toEqual([-(2n ** 63n), -(2n ** 63n)]);
	});

	it("refuses integers out of range or not integer literals", () => {
		expect(() => fillOf("int8", "128")).toThrow("fill_value: 128 is outside the int8 range [-128, 127]");
		expect(() => fillOf("uint64", "-1")).toThrow(/outside the uint64 range/);
		expect(() => fillOf("int32", "1.5")).toThrow("fill_value: expected an integer literal for data type int32, got 1.5");
		expect(() => fillOf("bool", "0")).toThrow("fill_value: expected true or false for data type bool, got 0");
	});

	it("reads float special values and hex bit patterns, bit for bit", () => {
		const nan = parsePlainDataType("float64").fillChunk(1, fillOf("float64", '"NaN"')) as Float64Array;
		expect(Number.isNaN(nan[0])).toBe(true);
		expect(Array.from(parsePlainDataType("float32").fillChunk(1, fillOf("float32", '"-Infinity"')) as Float32Array)).toEqual([-Infinity]);
		// A NaN with a payload keeps it: the chunk is filled through an integer view.
		expect(bitsOf(parsePlainDataType("float64").fillChunk(2, fillOf("float64", '"0x7ff8000000000123"')) as Float64Array)).toEqual([0x7ff8000000000123n, 0x7ff8000000000123n]);
		expect(bitsOf(parsePlainDataType("float32").fillChunk(1, fillOf("float32", '"0x3f800000"')) as Float32Array)).toEqual([0x3f800000]);
		expect(Array.from(parsePlainDataType("float32").fillChunk(1, fillOf("float32", "0.1")) as Float32Array)).toEqual([Math.fround(0.1)]);
		expect(() => fillOf("float64", '"0x3f800000"')).toThrow(/16 hex digits/);
		expect(() => fillOf("float64", '"nan"')).toThrow(/expected a number, "NaN"/);
	});

	it("refuses data types without a column type, saying why", () => {
		expect(() => parsePlainDataType("complex128")).toThrow("data type complex128 cannot be exported as a column (Arrow has no complex type)");
		expect(() => parsePlainDataType({ name: "struct" })).toThrow('data type {"name":"struct"} cannot be exported as a column');
	});
});

async function smallGroup(): Promise<string> {
	const root = fresh("g.zarr");
	await writeArray(root, "t", { shape: [5], chunks: [2], values: BigInt64Array.of(1n, 2n, 3n, 4n, 5n) });
	await writeArray(root, "f", { shape: [5], chunks: [3], dataType: "float64", fillValue: "0x7ff8000000000123", values: Float64Array.of(1, 2, 3, 4, 5), omitChunks: (c) => c[0] === 1 });
	await writeArray(root, "s", { shape: [5], chunks: [5], dataType: "string", fillValue: "", values: ["a", "b", "", "d", "é"], codecs: [{ name: "vlen-utf8" }] });
	return root;
}

class Collect extends Writable {
	readonly parts: Buffer[] = [];
	override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
		this.parts.push(chunk);
		callback();
	}
}

describe("the table API", () => {
	it("openTable + createTableExportStages: index and value columns, a missing float chunk filled bit for bit", async () => {
		const table = await openTable(await smallGroup(), { columns: ["t", "f", "s"] });
		expect(table.columns.map((column) => [column.name, column.kind])).toEqual([["t", "time"], ["f", "plain"], ["s", "plain"]]);
		const { reader, batcher, writer } = createTableExportStages(table, { index: true, format: "arrow-stream" });
		const out = new Collect();
		await pipeline(reader, batcher, writer, out);
		const result = tableFromIPC(Buffer.concat(out.parts));
		expect(result.schema.fields.map((field) => field.name)).toEqual(["dim_0", "t", "f", "s"]);
		const f = result.getChild("f")!.toArray() as Float64Array;
		expect(bitsOf(f).slice(3)).toEqual([0x7ff8000000000123n, 0x7ff8000000000123n]);
		expect(result.getChild("s")!.toArray()).toEqual(["a", "b", "", "d", "é"]);
	});

	it("invalid options fail up front, before the store is opened", async () => {
		const sink = new Collect();
		await expect(exportTable("/nonexistent.zarr", sink, { columns: ["t"], order: "chunk" })).rejects.toThrow(UsageError);
		await expect(exportTable("/nonexistent.zarr", sink, { columns: ["t"], column: "x" })).rejects.toMatchObject({ code: "USAGE", option: "column" });
		const table = await openTable(await smallGroup(), { columns: ["t", "s"] });
		expect(() => createTableExportStages(table, { order: "rows" as never, index: true })).toThrow('invalid order "rows": choose one of c, chunk');
		expect(() => createTableExportStages(table, { column: "x" })).toThrow(UsageError);
	});

	it("refuses a corrupt vlen-utf8 chunk with a one-line error", async () => {
		const root = await smallGroup();
		const chunk = path.join(root, "s", "c", "0");
		const bytes = fs.readFileSync(chunk);
		bytes.writeUInt32LE(1000, 4);
		fs.writeFileSync(chunk, bytes);
		const table = await openTable(root, { columns: ["s"] });
		const { reader, batcher, writer } = createTableExportStages(table);
		const failure = pipeline(reader, batcher, writer, new Collect());
		await expect(failure).rejects.toThrow(Dt64ExportError);
		await expect(failure).rejects.toThrow("chunk s/c/0: cannot decode: vlen-utf8: string 0 claims 1000 bytes, past the end of the chunk");
	});
});
