/**
 * The writer stages encode RecordBatches of dt64-export's own apache-arrow only: anything else, a batch of another
 * copy of apache-arrow before 21 included (an app on another version), is refused, where apache-arrow's IPC writer
 * skipped it and the export succeeded with an empty output (embedding trial). (A copy since 21 marks its batches, and
 * apache-arrow's `instanceof` accepts them.)
 */
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { createParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import { APACHE_ARROW_VERSION } from "../src/arrow/own-record-batch.js";
import { IpcWriter } from "../src/stream/ipc-writer.js";

/** What a batch of an older apache-arrow copy looks like here: its own class, named RecordBatch. */
class RecordBatch {
	readonly numRows = 3;
}

const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe("the apache-arrow version the refusal names", () => {
	it("is the version package.json pins and the one installed (apache-arrow exports no version of its own)", () => {
		const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
		expect(manifest.dependencies["apache-arrow"]).toBe(APACHE_ARROW_VERSION);
		const installed = JSON.parse(readFileSync(new URL("../node_modules/apache-arrow/package.json", import.meta.url), "utf8"));
		expect(installed.version).toBe(APACHE_ARROW_VERSION);
	});
});

describe("writer stages refuse batches they cannot encode", () => {
	for (const [stage, create] of [
		["Arrow IPC writer", () => new IpcWriter("stream")],
		["Arrow IPC writer", () => new IpcWriter("file")],
		["Parquet writer", () => createParquetWriter()],
	] as const) {
		it(`${stage}: another apache-arrow's batch, with the way out; a value that is no batch`, async () => {
			for (const foreign of [new RecordBatch()]) {
				await expect(pipeline(Readable.from([foreign]), create(), sink())).rejects.toMatchObject({
					code: "USAGE",
					message: `${stage}: a RecordBatch made by another copy of apache-arrow, which dt64-export's (21.2.0) cannot encode; make batches with apache-arrow 21.2.0 (install that version, so that npm keeps one copy), or pass them as IPC bytes`,
				});
			}
			for (const [value, kind] of [[{ not: "a batch" }, "Object"], ["hello", "string"], [42, "number"]] as const) {
				await expect(pipeline(Readable.from([value], { objectMode: true }), create(), sink())).rejects.toMatchObject({ code: "USAGE", message: `${stage} expects apache-arrow RecordBatch objects, got ${kind}` });
			}
		});
	}
});
