/**
 * Companion columns (`--columns`), index columns (`--index`) and row orders (`--order`): exports of several arrays
 * of one group read back by independent readers (DuckDB for Parquet, polars for IPC), N-d index columns checked
 * against numpy (test/golden/index-golden.json, made by make_index_golden.py), and the usage errors.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import pl from "nodejs-polars";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/index.js";
import { readArrow, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const NAT = -(2n ** 63n);
const PAST_2_53 = 2n ** 53n + 1n;
const LE = { name: "bytes", configuration: { endian: "little" } };
const BE = { name: "bytes", configuration: { endian: "big" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const work = tempDir("dt64-columns-");
let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);

const query = useDuckDB();

function exportOk(args: string[]): void {
	const result = runCli([...args, "-q"]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
}

/** A group of arrays of shape [N], each chunked, encoded and filled its own way. */
const N = 60;
const time = BigInt64Array.from({ length: N }, (_, i) => (i % 7 === 3 ? NAT : BigInt(1_700_000_000 + i * 3600)));
const temperature = Float64Array.from({ length: N }, (_, i) => (i % 11 === 5 ? NaN : i * 0.25 - 3));
const count = BigInt64Array.from({ length: N }, (_, i) => (i % 2 === 0 ? 2n ** 62n + BigInt(i) : -BigInt(i)));
const station = Int32Array.from({ length: N }, (_, i) => (i * 7919) % 100_003 - 50_000);
const ok = Uint8Array.from({ length: N }, (_, i) => (i % 3 === 0 ? 1 : 0));
const names = Array.from({ length: N }, (_, i) => (i % 4 === 0 ? "" : `station ${i} – Zürich ✓`));
const big = BigUint64Array.from({ length: N }, (_, i) => 2n ** 64n - 1n - BigInt(i));
/** `count`'s chunk [20, 30) is missing: the fill value, exactly. */
const MISSING = [20, 30];
const expectedCount = Array.from(count, (v, i) => (i >= MISSING[0] && i < MISSING[1] ? PAST_2_53 : v));

let group: string;
beforeAll(async () => {
	group = fresh("group.zarr");
	await writeGroup(group, "");
	await writeArray(group, "time", { shape: [N], chunks: [16], dataType: seconds, values: time, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
	await writeArray(group, "temperature", {
		shape: [N],
		chunks: [21],
		dataType: "float64",
		fillValue: "NaN",
		values: temperature,
		codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [7], codecs: [LE, { name: "zstd", configuration: { level: 1, checksum: false } }], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }],
	});
	await writeArray(group, "count", { shape: [N], chunks: [10], dataType: "int64", fillValue: PAST_2_53, values: count, omitChunks: (c) => c[0] === 2, codecs: [BE] });
	await writeArray(group, "station", { shape: [N], chunks: [25], dataType: "int32", fillValue: 0, values: station, codecs: [BE, { name: "crc32c" }] });
	await writeArray(group, "ok", { shape: [N], chunks: [N], dataType: "bool", fillValue: false, values: ok });
	await writeArray(group, "name", {
		shape: [N],
		chunks: [24],
		dataType: "string",
		fillValue: "",
		values: names,
		codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [12], codecs: [{ name: "vlen-utf8" }], index_codecs: [LE], index_location: "start" } }],
	});
	await writeArray(group, "big", { shape: [N], chunks: [9], dataType: "uint64", fillValue: 0n, values: big, codecs: [LE, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }] });
	await writeArray(group, "other/half", { shape: [N], chunks: [N], dataType: "float16", fillValue: 0, values: new Uint16Array(N) });
	await writeArray(group, "short", { shape: [N - 1], chunks: [10], dataType: "float32", fillValue: 0, values: new Float32Array(N - 1) });
});

const ALL = "time,temperature,count,station,ok,name,big";

describe("companion columns", () => {
	it("DuckDB reads the Parquet file: every type, exact values, NaT as null, NaN kept", async () => {
		const file = fresh("all.parquet");
		exportOk([group, "--columns", ALL, "--to", "parquet", "-o", file]);
		expect(await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`)).toEqual([
			["time", "TIMESTAMP"],
			["temperature", "DOUBLE"],
			["count", "BIGINT"],
			["station", "INTEGER"],
			["ok", "BOOLEAN"],
			["name", "VARCHAR"],
			["big", "UBIGINT"],
		]);
		const rows = await query(`SELECT epoch_ms(time), temperature, count, station, ok, name, big FROM read_parquet('${file}')`);
		expect(rows.length).toBe(N);
		rows.forEach((row, i) => {
			expect(row[0]).toBe(time[i] === NAT ? null : time[i] * 1000n);
			if (Number.isNaN(temperature[i])) expect(Number.isNaN(row[1] as number)).toBe(true);
			else expect(row[1]).toBe(temperature[i]);
			expect(row[2]).toBe(expectedCount[i]);
			expect(row[3]).toBe(station[i]);
			expect(row[4]).toBe(ok[i] === 1);
			expect(row[5]).toBe(names[i]);
			expect(row[6]).toBe(big[i]);
		});
	});

	it("polars reads the IPC file with the same values", () => {
		const file = fresh("all.arrow");
		exportOk([group, "--columns", ALL, "-o", file]);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.columns).toEqual(ALL.split(","));
		expect(String(df.getColumn("time").dtype)).toMatch(/Datetime.*s/i);
		expect(df.getColumn("time").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(Array.from(time, (v) => (v === NAT ? null : (v * 1000n).toString())));
		const temperatures = df.getColumn("temperature").toArray() as number[];
		expect(temperatures.map((v) => (Number.isNaN(v) ? "NaN" : v))).toEqual(Array.from(temperature, (v) => (Number.isNaN(v) ? "NaN" : v)));
		expect(df.getColumn("temperature").nullCount()).toBe(0);
		expect(df.getColumn("count").cast(pl.Utf8).toArray()).toEqual(expectedCount.map(String));
		expect(df.getColumn("station").toArray()).toEqual(Array.from(station));
		expect(df.getColumn("ok").toArray()).toEqual(Array.from(ok, (v) => v === 1));
		expect(df.getColumn("name").toArray()).toEqual(names);
		expect(df.getColumn("big").cast(pl.Utf8).toArray()).toEqual(Array.from(big, String));
	});

	it("keeps the Zarr data type in the field metadata, and companion fields are not nullable", () => {
		const file = fresh("meta.arrow");
		exportOk([group, "--columns", "time,count,name", "-o", file, "--unit", "ms", "--tz", "UTC"]);
		const table = readArrow(file);
		const [t, c, n] = table.schema.fields;
		expect(String(t.type)).toBe("Timestamp<MILLISECOND, UTC>");
		expect(t.nullable).toBe(true);
		expect(c.nullable).toBe(false);
		expect(c.metadata.get("zarr.data_type")).toBe('"int64"');
		expect(n.metadata.get("zarr.data_type")).toBe('"string"');
	});

	it("an unpacked column (scale_factor, add_offset, nothing masking it) is not nullable; a masked one is", async () => {
		const store = fresh("packed.zarr");
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [4], chunks: [4], dataType: seconds, values: BigInt64Array.of(0n, 1n, 2n, 3n), dimensionNames: ["time"] });
		const q = Int16Array.of(-3, 0, 7, 32767);
		await writeArray(store, "q", { shape: [4], chunks: [4], dataType: "int16", values: q, fillValue: 0, dimensionNames: ["time"], attributes: { scale_factor: 0.5, add_offset: 10 } });
		await writeArray(store, "m", { shape: [4], chunks: [4], dataType: "int16", values: q, fillValue: 0, dimensionNames: ["time"], attributes: { scale_factor: 0.5, _FillValue: 32767 } });
		const file = fresh("packed.arrow");
		exportOk([store, "--columns", "q,m", "--index", "-o", file]);
		const table = readArrow(file);
		const field = (name: string) => table.schema.fields.find((f) => f.name === name)!;
		expect(String(field("q").type)).toBe("Float64");
		expect(field("q").nullable).toBe(false);
		expect([...table.getChild("q")!]).toEqual([8.5, 10, 13.5, 32767 * 0.5 + 10]);
		expect(field("m").nullable).toBe(true);
		expect([...table.getChild("m")!]).toEqual([-1.5, 0, 3.5, null]);
	});

	it("applies the time conversion rules to time columns, naming the column in errors", () => {
		const file = fresh("trunc.arrow");
		const result = runCli([group, "--columns", "temperature,time", "--unit", "ms", "-o", file]);
		expect(result.status).toBe(0);
		const store = fresh("fine.zarr");
		return writeArray(store, "t", { shape: [3], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } }, values: BigInt64Array.of(0n, 1500n, 7n) }).then(async () => {
			await writeArray(store, "v", { shape: [3], chunks: [3], dataType: "int8", fillValue: 0, values: Int8Array.of(1, -2, 3) });
			const refused = runCli([store, "--columns", "v,t", "--unit", "us", "-o", fresh("x.arrow")]);
			expect(refused.status).toBe(1);
			expect(refused.stderr).toMatch(/^dt64-export: value 1500 of datetime64\[ns\] at row 1 of column "t" is not a whole number of us/);
			const floored = fresh("floor.arrow");
			exportOk([store, "--columns", "v,t", "--unit", "us", "--allow-truncate", "-o", floored]);
			const table = readArrow(floored);
			expect(table.getChild("t")!.data.flatMap((data) => Array.from(data.values as BigInt64Array))).toEqual([0n, 1n, 0n]);
			expect(Array.from(table.getChild("v")!.toArray() as Int8Array)).toEqual([1, -2, 3]);
		});
	});

	it("a timedelta64 companion column: polars reads a duration from IPC and Parquet, DuckDB BIGINT counts", async () => {
		const root = fresh("lag.zarr");
		const lag = BigInt64Array.of(0n, -1n, NAT, 86_400n, 2n ** 40n);
		await writeArray(root, "t", { shape: [5], chunks: [2], dataType: seconds, values: BigInt64Array.of(1n, 2n, 3n, NAT, 5n) });
		await writeArray(root, "lag", { shape: [5], chunks: [3], dataType: { name: "numpy.timedelta64", configuration: { unit: "s", scale_factor: 1 } }, values: lag, codecs: [BE] });
		const arrow = fresh("lag.arrow");
		exportOk([root, "--columns", "t,lag", "-o", arrow]);
		const df = pl.readIPC(fs.readFileSync(arrow));
		expect(String(df.getColumn("lag").dtype)).toMatch(/Duration.*ms/i);
		// Seconds become milliseconds, as for timestamps: polars has no seconds duration.
		const asMs = Array.from(lag, (v) => (v === NAT ? null : String(v * 1000n)));
		expect(df.getColumn("lag").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(asMs);
		const parquet = fresh("lag.parquet");
		exportOk([root, "--columns", "t,lag", "--to", "parquet", "-o", parquet]);
		const polarsParquet = pl.readParquet(fs.readFileSync(parquet));
		expect(String(polarsParquet.getColumn("lag").dtype)).toMatch(/Duration.*ms/i);
		expect(polarsParquet.getColumn("lag").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(asMs);
		const types = await query(`SELECT column_type FROM (DESCRIBE SELECT lag FROM read_parquet('${parquet}'))`);
		expect(types).toEqual([["BIGINT"]]);
		const rows = await query(`SELECT lag FROM read_parquet('${parquet}')`);
		expect(rows.map(([v]) => (v === null ? null : String(v)))).toEqual(asMs);
	});

	it("reads the arrays of a subgroup named by --array, and names the file after the group", async () => {
		const root = fresh("nested.zarr");
		await writeArray(root, "obs/t", { shape: [4], chunks: [3], dataType: seconds, values: BigInt64Array.of(1n, 2n, NAT, 4n) });
		await writeArray(root, "obs/v", { shape: [4], chunks: [4], dataType: "uint8", fillValue: 0, values: Uint8Array.of(9, 8, 7, 6) });
		const cwd = fresh("cwd");
		fs.mkdirSync(cwd);
		const result = runCli([root, "--array", "obs", "--columns", "t,v", "--to", "arrow-stream"], { cwd });
		expect(result.status).toBe(0);
		expect(result.stderr).toBe(`wrote 4 rows to obs.arrows\n`);
		const df = pl.readIPCStream(fs.readFileSync(path.join(cwd, "obs.arrows")));
		expect(df.getColumn("v").toArray()).toEqual([9, 8, 7, 6]);
	});
});

interface GoldenCase {
	name: string;
	shape: number[];
	chunks: number[];
	c: { index: number[][]; values: number[] };
	chunk: { index: number[][]; values: number[] };
}
const golden = JSON.parse(fs.readFileSync(path.join(__dirname, "golden/index-golden.json"), "utf8")) as { cases: GoldenCase[] };

/** The formula make_index_golden.py uses: value(i, j, ...) = sum(coord * 1000 ** (ndim - 1 - axis)). */
function formulaValues(shape: number[]): number[] {
	const out: number[] = [];
	const coords = shape.map(() => 0);
	const total = shape.reduce((a, b) => a * b, 1);
	for (let n = 0; n < total; n++) {
		out.push(coords.reduce((sum, c, axis) => sum + c * 1000 ** (shape.length - 1 - axis), 0));
		let axis = shape.length - 1;
		while (axis >= 0 && ++coords[axis] === shape[axis]) coords[axis--] = 0;
	}
	return out;
}

/** Every column of an Arrow file as plain numbers (int64 and timestamps as their integer values). */
function columnsOf(file: string): Record<string, number[]> {
	const table = readArrow(file);
	const out: Record<string, number[]> = {};
	for (const field of table.schema.fields) {
		const values: number[] = [];
		for (const batch of table.batches) {
			const data = batch.getChild(field.name)!.data[0];
			for (let i = 0; i < data.length; i++) values.push(Number((data.values as ArrayLike<number | bigint>)[i]));
		}
		out[field.name] = values;
	}
	return out;
}

describe("N-d arrays with index columns, checked against numpy", () => {
	for (const golden_ of golden.cases) {
		const { name, shape, chunks } = golden_;
		const rank = shape.length;
		const transpose = { name: "transpose", configuration: { order: Array.from({ length: rank }, (_, axis) => rank - 1 - axis) } };
		let root: string;
		beforeAll(async () => {
			root = fresh(`${name}.zarr`);
			const values = formulaValues(shape);
			await writeArray(root, "t", { shape, chunks, dataType: seconds, values: BigInt64Array.from(values, BigInt), codecs: [transpose, LE], dimensionNames: rank === 3 ? ["z", null, "x"] : undefined });
			// Same read chunks, different encoding: sharded, with the transpose inside.
			const shard = chunks.map((c, axis) => c * (axis === 0 ? 2 : 1));
			await writeArray(root, "v", { shape, chunks: shard, dataType: "float64", fillValue: 0, values: Float64Array.from(values, (v) => v + 0.5), codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: chunks, codecs: [transpose, BE], index_codecs: [LE, { name: "crc32c" }] } }] });
			// Other chunks: allowed in C order only.
			await writeArray(root, "w", { shape, chunks: shape.map((n) => Math.max(1, n - 1)), dataType: "int16", fillValue: -1, values: Int16Array.from(values, (v) => v % 30000) });
		});
		const indexNames = rank === 3 ? ["z", "dim_1", "x"] : ["dim_0", "dim_1"];

		it(`${name}: --order c gives numpy's ravel() and np.indices`, () => {
			const file = fresh(`${name}-c.arrow`);
			exportOk([root, "--columns", "t,v,w", "--index", "-o", file]);
			const columns = columnsOf(file);
			expect(Object.keys(columns)).toEqual([...indexNames, "t", "v", "w"]);
			indexNames.forEach((indexName, axis) => expect(columns[indexName]).toEqual(golden_.c.index[axis]));
			expect(columns.t).toEqual(golden_.c.values);
			expect(columns.v).toEqual(golden_.c.values.map((v) => v + 0.5));
			expect(columns.w).toEqual(golden_.c.values.map((v) => v % 30000));
		});

		it(`${name}: --order chunk gives the chunks in grid order, each in C order, clipped at the edges`, () => {
			const file = fresh(`${name}-chunk.arrow`);
			exportOk([root, "--columns", "t,v", "--index", "--order", "chunk", "-o", file]);
			const columns = columnsOf(file);
			indexNames.forEach((indexName, axis) => expect(columns[indexName]).toEqual(golden_.chunk.index[axis]));
			expect(columns.t).toEqual(golden_.chunk.values);
			expect(columns.v).toEqual(golden_.chunk.values.map((v) => v + 0.5));
			// As a set, the same rows as C order: every position once, with its value.
			const row = (k: number) => JSON.stringify([...indexNames.map((n) => columns[n][k]), columns.t[k]]);
			const rows = new Set(columns.t.map((_, k) => row(k)));
			const cRows = new Set(golden_.c.values.map((v, k) => JSON.stringify([...golden_.c.index.map((axis) => axis[k]), v])));
			expect(rows).toEqual(cRows);
		});
	}

	it("a single datetime64 array with --index (Parquet), and --order chunk without a band", async () => {
		const [golden2d] = golden.cases;
		const root = fresh("single.zarr");
		await writeArray(root, "", { shape: golden2d.shape, chunks: golden2d.chunks, dataType: seconds, values: BigInt64Array.from(formulaValues(golden2d.shape), BigInt) });
		const file = fresh("single.parquet");
		exportOk([root, "--index", "--to", "parquet", "--column", "at", "-o", file]);
		const rows = await query(`SELECT dim_0, dim_1, epoch_ms("at") // 1000 FROM read_parquet('${file}')`);
		expect(rows.map((r) => r.map(Number))).toEqual(golden2d.c.values.map((v, k) => [golden2d.c.index[0][k], golden2d.c.index[1][k], v]));
		const chunkFile = fresh("single-chunk.arrow");
		exportOk([root, "--index", "--order", "chunk", "-o", chunkFile]);
		expect(columnsOf(chunkFile).dim_1).toEqual(golden2d.chunk.index[1]);
	});
});

describe("usage errors (exit 2)", () => {
	const usage = (args: string[], message: RegExp) => {
		const result = runCli([...args, "-o", fresh("never.arrow")]);
		expect(result.stderr).toMatch(message);
		expect(result.stderr.trim().split("\n")).toHaveLength(1);
		expect(result.status).toBe(2);
	};

	it("--order chunk without --index", () => usage([group, "--order", "chunk"], /^dt64-export: --order chunk needs index columns/));
	it("--column with --columns", () => usage([group, "--columns", "time", "--column", "t"], /^dt64-export: --column conflicts with --columns: the columns of a table are named after their arrays \[USAGE\]\n$/));
	it("arrays of different shapes without dimension names, listing each", () =>
		usage([group, "--columns", "time,short"], /^dt64-export: short \[59\] \(no dimension names\) cannot be matched to the table's dimensions \(dim_0\) by name, and its shape differs: time \[60\] \(no dimension names\), short \[59\] \(no dimension names\); export them separately, or choose --columns whose dimensions agree \[COLUMNS_INCOMPATIBLE\]$/m));
	it("an unknown column, listing what the group holds", () =>
		usage([group, "--columns", "time,nope"], /^dt64-export: --columns: no array "nope" in the store root; it holds big \(uint64\), count \(int64\), name \(string\), ok \(bool\), other\/half \(float16\), short \(float32\), station \(int32\), temperature \(float64\), time \(numpy.datetime64\) \[COLUMN_NOT_FOUND\]\n/));
	it("a half float array is no longer refused: a Float32 column", () => {
		const file = fresh("half.arrow");
		exportOk([group, "--columns", "time,other/half", "-o", file]);
		const table = readArrow(file);
		expect(String(table.schema.fields[1].type)).toBe("Float32");
		expect([...table.getChild("half")!].every((value) => value === 0)).toBe(true);
	});
	it("--order chunk with columns of different chunk shapes", () => usage([group, "--columns", "time,count", "--index", "--order", "chunk"], /^dt64-export: --order chunk needs every column over all of the table's dimensions read in the same chunk shape, got time \[16\], count \[10\]: use --order c \[COLUMNS_INCOMPATIBLE\]/));
	it("an index column named like a value column", async () => {
		const root = fresh("clash.zarr");
		await writeArray(root, "t", { shape: [2, 2], chunks: [2, 2], dataType: seconds, values: BigInt64Array.of(1n, 2n, 3n, 4n), dimensionNames: ["t", "y"] });
		// Both named t in the store: a rename of t renames both (trial 24 finding 09), so that is not the advice.
		usage([root, "--columns", "t", "--index"], /^dt64-export: the column name "t" is given to both the index of dimension "t" and array t, which a rename by name cannot tell apart \(it renames both\): leave the array out of --columns, or export without --index \[COLUMNS_INCOMPATIBLE\]$/m);
		// A clash a rename made: the advice names the column by its name in the store, which renames are keyed by.
		await writeArray(root, "v", { shape: [2, 2], chunks: [2, 2], dataType: seconds, values: BigInt64Array.of(1n, 2n, 3n, 4n), dimensionNames: ["t", "y"] });
		usage([root, "--columns", "v", "--index", "--rename", "y=t"], /^dt64-export: column name "t" is given to both the index of dimension "t" and the index of dimension "y": rename one with --rename y=<new name> \[COLUMNS_INCOMPATIBLE\]$/m);
	});
});

describe("an auxiliary coordinate no column can be made of", () => {
	it("is left out, named with why, whether for its data type or a codec this package does not decode", async () => {
		const root = path.join(tempDir(), "unreadable-coordinates.zarr");
		await writeGroup(root, "");
		await writeArray(root, "time", { shape: [2], chunks: [2], values: BigInt64Array.of(0n, 60n), dimensionNames: ["time"] });
		const floats = { shape: [2], chunks: [2], dataType: "float32", fillValue: 0, values: Float32Array.of(1, 2), dimensionNames: ["time"] };
		await writeArray(root, "tas", { ...floats, attributes: { coordinates: "code height" } });
		await writeArray(root, "code", { ...floats, extraMetadata: { data_type: "complex64" } });
		await writeArray(root, "height", { ...floats, extraMetadata: { codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "lzma9000" }] } });
		const { leftOut } = await exportTable(root, new PassThrough().resume(), { columns: ["tas"], index: true });
		expect(leftOut).toEqual([expect.stringMatching(/^the coordinate code: data type complex64 cannot be exported as a column/), 'the coordinate height: unknown codec "lzma9000"']);
	});
});
