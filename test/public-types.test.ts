/**
 * The types a library user sees: the package's dist/index.d.ts, read with the TypeScript checker. Its option types
 * hold the options README's Library section documents, not the package's own (trial 33: CfDecodeOptions showed
 * inPlace, allocateValues, allocateBitmap, invalidDates, describePosition; ConvertOptions describePosition; the
 * store options, ZarrTable and TimeArray bufferPool; TableReaderOptions chunksInFlight, rows, bufferPool;
 * TableBatcherOptions allocateIndex, countOverflowNulls, invalidDateBounds). A field of the pipeline's put back on a
 * public type fails here.
 */
import * as path from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO } from "./support/cli.js";

/** The pipeline's own settings of the decoding and conversion cores: never a public type's. */
const INTERNAL_FIELDS = ["inPlace", "allocateValues", "allocateBitmap", "invalidDates", "describePosition", "unheldCount", "bufferPool", "chunksInFlight", "allocateIndex", "countOverflowNulls", "invalidDateBounds"];

/** Each exported interface or object type of dist/index.d.ts, by name, with its property names. */
let properties: Map<string, string[]>;

beforeAll(() => {
	const entry = path.join(REPO, "dist/index.d.ts");
	const options = { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, noEmit: true };
	const program = ts.createProgram([entry], options);
	const checker = program.getTypeChecker();
	const module = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile) as ts.Symbol;
	properties = new Map();
	for (const exported of checker.getExportsOfModule(module)) {
		const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
		if (!(symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias))) continue;
		const type = checker.getDeclaredTypeOfSymbol(symbol);
		if (!(type.flags & ts.TypeFlags.Object)) continue;
		properties.set(exported.name, checker.getPropertiesOfType(type).map((property) => property.name));
	}
}, 120_000);

describe("the public types (dist/index.d.ts)", () => {
	it("the core's options are those README documents: decodeCfTimes' { unit, rounding, allowTruncate, onOverflow, dataType }, toArrowTimestamps' conversion options", () => {
		expect(properties.get("CfDecodeOptions")?.sort()).toEqual(["allowTruncate", "dataType", "onOverflow", "rounding", "unit"]);
		expect(properties.get("ConvertOptions")?.sort()).toEqual(["allowTruncate", "onOverflow", "rounding", "unit"]);
	});

	it("the stages' options are those README documents: TableReader's { order, concurrency, onChunk, rowBytes, readAheadBytes }, TableBatcher's { columns, shape }", () => {
		expect(properties.get("TableReaderOptions")?.sort()).toEqual(["concurrency", "onChunk", "order", "readAheadBytes", "rowBytes"]);
		expect(properties.get("TableBatcherOptions")?.sort()).toEqual(["columns", "shape"]);
	});

	it("no option or result type shows the pipeline's buffer pool (ExportOptions, OpenTableOptions, OpenArrayOptions, InspectOptions, ZarrTable, TimeArray)", () => {
		for (const name of ["ExportOptions", "OpenTableOptions", "OpenArrayOptions", "InspectOptions", "ZarrTable", "TimeArray"]) {
			expect(properties.get(name), name).toBeDefined();
			expect(properties.get(name), name).not.toContain("bufferPool");
		}
	});

	it("no exported type holds a field of the pipeline's own settings", () => {
		expect(properties.size).toBeGreaterThan(20);
		const leaked = [...properties].flatMap(([name, fields]) => fields.filter((field) => INTERNAL_FIELDS.includes(field)).map((field) => `${name}.${field}`));
		expect(leaked).toEqual([]);
	});
});
