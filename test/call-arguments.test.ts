/**
 * The library's calls given what only a JavaScript caller can give them (no types to check): each wrong argument is
 * a USAGE error naming it, before anything is read or written, where they were Node's TypeErrors, a TypeError in the
 * middle of an export, or a misspelt option ignored (trial 33).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
	cfMissingValueMarkers,
	commitDataset,
	createParquetWriter,
	createTableExportStages,
	decodeCfTimes,
	exportDataset,
	exportSelection,
	exportTable,
	exportToFile,
	formatDatetime64Type,
	formatInspectReport,
	inspectStore,
	IpcWriter,
	isMissingValue,
	openTable,
	openTimeArray,
	ParquetWriter,
	parseCfTimeCoding,
	parseDatetime64Type,
	TableBatcher,
	TableReader,
	tableOfTimeArray,
	toArrowTimestamps,
} from "../src/index.js";
import { readArrow, REPO, tempDir } from "./support/cli.js";

const weather = path.join(REPO, "data/weather-station.zarr");
const observations = path.join(REPO, "data/observations.zarr");
const rejection = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);
const usage = (option: string, message: string | RegExp) => ({ name: "UsageError", code: "USAGE", option, message: typeof message === "string" ? message : expect.stringMatching(message) });
// As a JavaScript caller passes them: the types would refuse each.
const loose = (value: unknown) => value as never;

describe("stores, paths and options", () => {
	it("a store or output path that is not a string is USAGE (Node's TypeError: The \"paths[0]\" argument must be of type string)", async () => {
		const dir = tempDir();
		expect(await rejection(exportToFile(loose(42), path.join(dir, "a.arrow")))).toMatchObject(usage("store", "the store must be a path or URL string, got the number 42"));
		expect(await rejection(exportTable(loose(undefined), new PassThrough()))).toMatchObject(usage("store", "the store must be a path or URL string, got undefined"));
		expect(await rejection(exportToFile(weather, loose(Buffer.from(path.join(dir, "b.arrow")))))).toMatchObject(usage("path", "the output path must be a string, got a Buffer"));
		expect(await rejection(exportDataset(weather, loose(7), { partitionBy: "day" }))).toMatchObject(usage("folder", "the output folder must be a string, got the number 7"));
		expect(await rejection(commitDataset(loose(7)))).toMatchObject(usage("folder", "the output folder must be a string, got the number 7"));
		expect(await rejection(inspectStore(loose(5)))).toMatchObject(usage("store", "the store must be a path or URL string, got the number 5"));
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("options that are not an object are USAGE; null stands for none, as undefined does (a TypeError: Cannot read properties of null)", async () => {
		const dir = tempDir();
		expect(await rejection(exportToFile(weather, path.join(dir, "a.arrow"), loose("parquet")))).toMatchObject(usage("options", 'options must be an object, got the string "parquet"'));
		expect((await exportToFile(weather, path.join(dir, "b.arrow"), loose(null))).strayTemporaryFiles).toEqual([]);
		expect((await exportSelection(weather, new PassThrough().resume(), loose(undefined))).rows).toBe(17_520);
	});

	it("options in an object that holds none are USAGE (a Promise not awaited, a Map: their format and unit were ignored, the defaults written)", async () => {
		const dir = tempDir();
		expect(await rejection(exportToFile(weather, path.join(dir, "a.arrow"), loose(Promise.resolve({ unit: "s" }))))).toMatchObject(usage("options", "options must be an object, got a Promise (await it first)"));
		expect(await rejection(exportTable(weather, new PassThrough(), loose(new Map([["format", "parquet"]]))))).toMatchObject(usage("options", "options must be an object, got a Map"));
		expect(await rejection(openTable(observations, loose(new Date())))).toMatchObject(usage("options", "options must be an object, got a Date"));
		expect(fs.readdirSync(dir)).toEqual([]);
		// A class instance's own options are options, as a plain object's; one without a prototype too.
		class Options {
			readonly columns = ["temperature"];
		}
		expect((await openTable(observations, new Options())).columns.map((column) => column.name)).toEqual(["temperature"]);
		// A class's getter is inherited: read by no call (a format of "parquet" wrote Arrow), it is refused; a method may be inherited.
		class Getters {
			get format() {
				return "parquet" as const;
			}
		}
		expect(await rejection(exportTable(weather, new PassThrough(), new Getters()))).toMatchObject(usage("format", /^options: "format" is inherited \(a Getters's prototype\), and only an object's own properties are read/));
		class WithMethod {
			readonly columns = ["temperature"];
			describe() {
				return "temperature";
			}
		}
		expect((await openTable(observations, loose(new WithMethod()))).columns.map((column) => column.name)).toEqual(["temperature"]);
		const bare = Object.assign(Object.create(null) as object, { columns: ["temperature"] });
		expect((await openTable(observations, bare)).columns.map((column) => column.name)).toEqual(["temperature"]);
	});

	it("a bigint or a prototype-less object where a string or a boolean goes is USAGE too (JSON.stringify threw a TypeError: Do not know how to serialize a BigInt)", async () => {
		const dir = tempDir();
		expect(await rejection(exportTable(loose(1n), new PassThrough()))).toMatchObject(usage("store", "the store must be a path or URL string, got the bigint 1n"));
		expect(await rejection(exportToFile(weather, path.join(dir, "a.arrow"), { overwrite: loose(1n) }))).toMatchObject(usage("overwrite", "invalid overwrite 1n: true or false"));
		expect(await rejection(inspectStore(loose(Object.create(null))))).toMatchObject(usage("store", "the store must be a path or URL string, got an object"));
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("onChunk that is not a function is refused before the store is opened (a TypeError once the first chunk was read)", async () => {
		const destination = new PassThrough();
		expect(await rejection(exportTable(weather, destination, { onChunk: loose("progress") }))).toMatchObject(usage("onChunk", "invalid onChunk: a function (chunkIndex, totalChunks)"));
		expect(destination.readableLength).toBe(0);
	});

	it("overwrite that is not true or false is refused (a truthy string replaced a file, or a dataset folder)", async () => {
		const dir = tempDir();
		fs.writeFileSync(path.join(dir, "t.arrow"), "mine");
		expect(await rejection(exportToFile(weather, path.join(dir, "t.arrow"), { overwrite: loose("no") }))).toMatchObject(usage("overwrite", 'invalid overwrite "no": true or false'));
		expect(fs.readFileSync(path.join(dir, "t.arrow"), "utf8")).toBe("mine");
		expect(await rejection(exportDataset(weather, path.join(dir, "ds"), { partitionBy: "day", overwrite: loose(1) }))).toMatchObject(usage("overwrite", "invalid overwrite 1: true or false"));
		expect(fs.readdirSync(dir)).toEqual(["t.arrow"]);
	});

	it("a misspelt option of openTable, openTimeArray or inspectStore is refused, as the exports' are (it was ignored)", async () => {
		expect(await rejection(openTable(observations, loose({ columns: ["temperature"], indexSorce: "positions" })))).toMatchObject(usage("indexSorce", 'openTable: unknown option "indexSorce" (did you mean indexSource?)'));
		expect(await rejection(openTimeArray(weather, loose({ arry: "time" })))).toMatchObject(usage("arry", 'openTimeArray: unknown option "arry" (did you mean array?)'));
		expect(await rejection(inspectStore(weather, loose({ maxChunk: 3 })))).toMatchObject(usage("maxChunk", 'inspectStore: unknown option "maxChunk" (did you mean maxChunks?)'));
		expect((await openTable(observations, { columns: ["temperature"], indexSource: "positions" })).columns.map((column) => column.name)).toEqual(["temperature"]);
	});

	it("an option inherited through a prototype (Object.create(defaults)) is refused by every call, naming it (the exports ignored it: unit 'bogus' exported in ns; openTable's columns were a TypeError)", async () => {
		const dir = tempDir();
		const inherit = (options: object, own: object = {}) => loose(Object.assign(Object.create(options), own));
		const inherited = (name: string) => usage(name, new RegExp(`^options: "${name}" is inherited \\(an Object's prototype\\), and only an object's own properties are read`));
		expect(await rejection(exportToFile(weather, path.join(dir, "a.arrow"), inherit({ unit: "bogus" })))).toMatchObject(inherited("unit"));
		expect(await rejection(exportTable(weather, new PassThrough(), inherit({ unti: "s" })))).toMatchObject(inherited("unti"));
		expect(await rejection(exportSelection(weather, new PassThrough(), inherit({ onOverflow: "wrap" })))).toMatchObject(inherited("onOverflow"));
		expect(await rejection(exportDataset(weather, path.join(dir, "set"), inherit({ partitionBy: "decade" })))).toMatchObject(inherited("partitionBy"));
		expect(await rejection(exportToFile(weather, path.join(dir, "s.arrow"), inherit({ unit: "ms" }, { unit: "s" })))).toMatchObject(inherited("unit"));
		expect(await rejection(openTable(observations, inherit({ columns: ["temperature"], indexSource: "positions" })))).toMatchObject(inherited("columns"));
		expect(await rejection(openTimeArray(weather, inherit({ arry: "time" })))).toMatchObject(inherited("arry"));
		expect(await rejection(inspectStore(weather, inherit({ maxChunk: 3 })))).toMatchObject(inherited("maxChunk"));
		const table = await openTable(observations, { columns: ["temperature"], indexSource: "positions" });
		expect(() => createTableExportStages(table, inherit({ unit: "bogus" }))).toThrow(expect.objectContaining(inherited("unit")));
		const coding = parseCfTimeCoding({ units: "days since 2000-01-01" });
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: {}, fillValue: null });
		const counts = new BigInt64Array([1n]);
		expect(() => decodeCfTimes(counts, coding, markers, inherit({ unit: "s", onOverflow: "error", dataType: "int64", inPlace: true }))).toThrow(expect.objectContaining(inherited("unit")));
		const seconds = parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } });
		expect(() => toArrowTimestamps(counts, seconds, inherit({ unit: "ms", rouding: "floor" }))).toThrow(expect.objectContaining(inherited("unit")));
		// Copied into an own object, as the refusal advises, the same options are read.
		await exportToFile(weather, path.join(dir, "ms.arrow"), { ...{ unit: "ms" } });
		expect(readArrow(path.join(dir, "ms.arrow")).schema.fields[0].type.unit).toBe(1);
		expect(fs.readdirSync(dir).sort()).toEqual(["ms.arrow"]);
	});

	it("Object.prototype's properties are no call's options (a polluted prototype is not read, nor refused as an unknown option)", async () => {
		const polluted = Object.prototype as Record<string, unknown>;
		polluted.unti = "s";
		try {
			expect((await openTable(observations, { columns: ["temperature"] })).columns.map((column) => column.name)).toEqual(["temperature"]);
			expect((await exportSelection(weather, new PassThrough().resume(), {})).rows).toBe(17_520);
		} finally {
			delete polluted.unti;
		}
	});
});

describe("destinations and stages", () => {
	it("a destination that is not a Node Writable is USAGE, before anything is read (destination.on is not a function, dest.write is not a function)", async () => {
		expect(await rejection(exportTable(weather, loose({})))).toMatchObject(usage("destination", "the destination must be a Node.js Writable stream, got an Object"));
		expect(await rejection(exportTable(weather, loose(new WritableStream())))).toMatchObject(usage("destination", /got a WritableStream \(a web WritableStream: pass Writable\.fromWeb\(stream\)\)$/));
		const readable = fs.createReadStream(path.join(weather, "zarr.json"));
		expect(await rejection(exportSelection(weather, loose(readable), { start: "2023" }))).toMatchObject(usage("destination", /got a ReadStream$/));
		readable.destroy();
		expect(await rejection(exportTable(weather, loose(path.join(tempDir(), "t.arrow"))))).toMatchObject(usage("destination", /got the string ".*t\.arrow"$/));
	});

	it("IpcWriter refuses a format other than file or stream (any other wrote the stream format)", () => {
		expect(() => new IpcWriter(loose("feather"))).toThrow(expect.objectContaining(usage("format", 'invalid IPC format "feather": "file" or "stream"')));
	});
});

describe("the stages and the cores given null, {} or a wrong value (each a TypeError inside the call, or garbage text)", () => {
	const refusals = (call: () => unknown) => {
		try {
			call();
		} catch (error) {
			return error;
		}
		return "no refusal";
	};

	it("createTableExportStages, tableOfTimeArray, TableReader, TableBatcher, createParquetWriter: USAGE naming the argument", async () => {
		for (const table of [null, {}, 5]) {
			expect(refusals(() => createTableExportStages(loose(table)))).toMatchObject(usage("table", /^createTableExportStages: table must be a table as openTable or tableOfTimeArray gives it, got /));
			expect(refusals(() => tableOfTimeArray(loose(table)))).toMatchObject(usage("array", /^tableOfTimeArray: array must be an array as openTimeArray gives it, got /));
			expect(refusals(() => new TableReader(loose(table), [1]))).toMatchObject(usage("columns", /^TableReader: columns must be a table's column sources, at least one \(createTableExportStages makes the stages\), got /));
			expect(refusals(() => new TableBatcher(loose(table)))).toMatchObject(usage("options", /^TableBatcher: options must be \{ columns, shape \} of a table \(createTableExportStages makes the stages\), got /));
		}
		expect(refusals(() => new TableReader([], [1]))).toMatchObject(usage("columns", /got an Array$/));
		expect(refusals(() => createParquetWriter(loose(5)))).toMatchObject(usage("options", "options must be an object, got the number 5"));
		const table = tableOfTimeArray(await openTimeArray(weather));
		const { reader } = createTableExportStages(table, loose(null));
		expect(refusals(() => new TableReader([loose({})], loose(null)))).toMatchObject(usage("shape", "TableReader: shape must be the table's shape, an array of lengths, got null"));
		reader.destroy();
		expect(createParquetWriter(loose(null))).toBeInstanceOf(ParquetWriter);
	});

	it("the pipeline's own settings, which the public types do not show, are refused from a caller as any unknown option (TableReader, TableBatcher; bufferPool of openTable, openTimeArray, inspectStore)", async () => {
		const table = tableOfTimeArray(await openTimeArray(weather));
		const { reader, batcher } = createTableExportStages(table, {});
		reader.destroy();
		const columns = [table.columns[0].chunks];
		for (const name of ["rows", "chunksInFlight", "bufferPool"]) {
			expect(refusals(() => new TableReader(columns, [...table.shape], loose({ [name]: undefined })))).toMatchObject(usage(name, new RegExp(`^TableReader: unknown option "${name}"`)));
		}
		batcher.destroy();
		const plans: unknown[] = [];
		for (const name of ["allocateIndex", "countOverflowNulls", "invalidDateBounds"]) {
			expect(refusals(() => new TableBatcher(loose({ columns: plans, shape: [1], [name]: true })))).toMatchObject(usage(name, new RegExp(`^TableBatcher: unknown option "${name}"`)));
		}
		// Documented ones are taken.
		const read = new TableReader(columns, [...table.shape], { order: "c", concurrency: 2, onChunk: () => {}, rowBytes: 8, readAheadBytes: 2 ** 20 });
		read.destroy();
		expect(new TableBatcher({ columns: [], shape: [1] }).schema.fields).toEqual([]);
		// A pool is the package's own: anything else was taken, and failed as a TypeError at the first chunk read.
		const internal = usage("bufferPool", "bufferPool is internal to dt64-export's own stages: leave it out");
		await expect(openTable(weather, loose({ columns: ["temperature"], bufferPool: {} }))).rejects.toMatchObject(internal);
		await expect(openTimeArray(weather, loose({ bufferPool: {} }))).rejects.toMatchObject(internal);
		await expect(inspectStore(weather, loose({ bufferPool: {} }))).rejects.toMatchObject(internal);
	});

	it("parseCfTimeCoding, cfMissingValueMarkers, isMissingValue, formatDatetime64Type, formatInspectReport: USAGE naming the argument", async () => {
		expect(refusals(() => parseCfTimeCoding(loose(null)))).toMatchObject(usage("attributes", "parseCfTimeCoding: attributes must be the array's attributes, an object, got null"));
		expect(parseCfTimeCoding({ units: "days since 2000-01-01" }, loose(null))).toMatchObject({ kind: "datetime", unit: "days" });
		expect(refusals(() => cfMissingValueMarkers(loose(null)))).toMatchObject(usage("source", "cfMissingValueMarkers: source must be { zarrFormat, dataType, attributes, fillValue }, got null"));
		const markers = cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: { _FillValue: -1 }, fillValue: null });
		for (const given of [null, {}, { integers: [], smallIntegers: [], floats: [], nanIsMissing: false }]) {
			expect(refusals(() => isMissingValue(loose(given), 1))).toMatchObject(usage("markers", /^isMissingValue: markers must be what cfMissingValueMarkers gives, got /));
		}
		// A string was false, silently: "-1" is no count.
		expect(refusals(() => isMissingValue(markers, loose("-1")))).toMatchObject(usage("value", "isMissingValue: value must be a number or a bigint, got string"));
		expect([isMissingValue(markers, -1n), isMissingValue(markers, 1n)]).toEqual([true, false]);
		for (const type of [null, {}, { kind: "datetime64", unit: "s" }]) {
			// {} gave "undefined[undefinedundefined]".
			expect(refusals(() => formatDatetime64Type(loose(type)))).toMatchObject(usage("type", /^formatDatetime64Type: type must be \{ kind, unit, scaleFactor \} as parseDatetime64Type gives it, got /));
		}
		expect(formatDatetime64Type({ kind: "datetime64", unit: "us", scaleFactor: 10 })).toBe("datetime64[10us]");
		for (const report of [null, {}]) {
			expect(refusals(() => formatInspectReport(loose(report)))).toMatchObject(usage("report", /^formatInspectReport: report must be a report as inspectStore gives it, got /));
		}
		const report = await inspectStore(weather);
		expect(refusals(() => formatInspectReport(report, loose({ advise: "yes" })))).toMatchObject(usage("advise", "formatInspectReport: advise must be a function, got string"));
		expect(formatInspectReport(report, loose(null))).toBe(formatInspectReport(report));
	});
});
