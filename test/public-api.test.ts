import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("public API", () => {
	it("exports the table API, openTimeArray, inspectStore, exportToFile, the stages, the conversion core, the CF time core and the errors: nothing else", () => {
		expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
			[
			  "CfDecodeError",
			  "ConversionError",
			  "Dt64ExportError",
			  "ERROR_CODES",
			  "IpcWriter",
			  "OUTPUT_FORMATS",
			  "ParquetWriter",
			  "TableBatcher",
			  "TableReader",
			  "UsageError",
			  "cfMissingValueMarkers",
			  "createParquetWriter",
			  "createTableExportStages",
			  "decodeCfTimes",
			  "exportTable",
			  "exportToFile",
			  "formatDatetime64Type",
			  "formatInspectReport",
			  "inspectReportToJson",
			  "inspectStore",
			  "isDt64ExportError",
			  "isMissingValue",
			  "openTable",
			  "openTimeArray",
			  "parseCfTimeCoding",
			  "parseDatetime64Type",
			  "tableOfTimeArray",
			  "toArrowTimestamps",
			]
		`);
	});
});
