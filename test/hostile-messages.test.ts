/**
 * Messages and reports quote the store's own text, which may be hostile: control characters (a terminal escape, a
 * line break forging a line) are written as JSON escapes, in every Dt64ExportError's message, in the CLI's error line
 * and in inspect's text report; a message is bounded (MAX_MESSAGE_CHARS, cut in the middle: its code's words and
 * advice at the end stay), so that a 2 MB fill value does not become a 2 MB log line, cut where a pipe was full.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { Dt64ExportError } from "../src/errors.js";
import { exportToFile } from "../src/export.js";
import { formatInspectReport, inspectStore } from "../src/inspect.js";
import { MAX_MESSAGE_CHARS } from "../src/message-text.js";
import { tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";

const work = tempDir("dt64-hostile-messages-");
const FORGED = "x\ndt64-export: wrote 0 rows [OK]\n\u001b[31mRED\u001b[0m\u202e";
const T0 = BigInt(Date.UTC(2024, 0, 1) / 1000);
const times = BigInt64Array.from({ length: 4 }, (_, i) => T0 + BigInt(i));

/** A store of one time array whose zarr.json is then changed by `change`. */
async function storeWithMetadata(name: string, change: (metadata: Record<string, unknown>) => void): Promise<string> {
	const root = path.join(work, name);
	await writeArray(root, "", { shape: [4], chunks: [4], values: times });
	const file = path.join(root, "zarr.json");
	const metadata = JSON.parse(fs.readFileSync(file, "utf8"));
	change(metadata);
	fs.writeFileSync(file, JSON.stringify(metadata));
	return root;
}

describe("control characters from the store", () => {
	it("are escaped in a library message, in the CLI's line and in inspect's report", async () => {
		const error = new Dt64ExportError("UNSUPPORTED", `data type is ${FORGED}, not numpy.datetime64`);
		expect(error.message).toBe("data type is x\ndt64-export: wrote 0 rows [OK]\n\\u001b[31mRED\\u001b[0m\\u202e, not numpy.datetime64");

		const dtype = await storeWithMetadata("forged-dtype.zarr", (metadata) => {
			metadata.data_type = FORGED;
		});
		const cli = await runCliAsync([dtype, "-o", path.join(work, "forged.arrow")]);
		expect(cli.stderr).not.toMatch(/[\u001b\u202e]/);
		expect(cli.stderr.split("\n")).toHaveLength(2);
		expect(cli.stderr).toMatch(/data type is x dt64-export: wrote 0 rows \[OK\] \\u001b\[31mRED\\u001b\[0m\\u202e, not .*\[UNSUPPORTED\]\n$/);

		const group = path.join(work, "forged-names.zarr");
		await writeGroup(group, "");
		await writeArray(group, `t${FORGED}`, { shape: [4], chunks: [4], values: times });
		const text = formatInspectReport(await inspectStore(group));
		expect(text).not.toMatch(/[\u001b\u202e]/);
		expect(text).not.toContain("\ndt64-export");
		expect(text).toContain("tx\\u000adt64-export: wrote 0 rows [OK]\\u000a\\u001b[31mRED\\u001b[0m\\u202e  array");
	});
});

describe("the CLI's own warnings and notices", () => {
	it("escape the store's names and attributes as error lines do: no line forged, no terminal driven", async () => {
		const names = `${FORGED}\r`;
		const group = path.join(work, "forged-warnings.zarr");
		await writeGroup(group, "");
		await writeArray(group, "time", { shape: [4], chunks: [4], values: times, dimensionNames: ["time"] });
		const floats = { shape: [4], chunks: [4], values: new Float64Array(4), dataType: "float64", fillValue: 0, dimensionNames: ["time"] };
		// Names differing only by case: a warning naming both.
		await writeArray(group, `A${names}`, floats);
		await writeArray(group, `a${names}`, floats);
		// A data type no column takes: `--columns all` leaves it out, naming it.
		await writeArray(group, `bad${names}`, { ...floats, extraMetadata: { data_type: "complex128" } });
		const cli = await runCliAsync([group, "--columns", "all", "--index", "-o", path.join(work, "forged-warnings.arrow")]);
		expect(cli.status).toBe(0);
		expect(cli.stderr).not.toMatch(/[\u001b\u202e\r]/);
		const lines = cli.stderr.split("\n");
		expect(lines.pop()).toBe("");
		for (const line of lines) expect(line).toMatch(/^(dt64-export: |wrote )/);
		expect(cli.stderr).toContain('"Ax\\ndt64-export: wrote 0 rows [OK]\\n\\u001b[31mRED\\u001b[0m\\u202e\\r"');
		expect(cli.stderr).toContain("left out badx dt64-export: wrote 0 rows [OK] \\u001b[31mRED\\u001b[0m\\u202e\\u000d");
		expect(lines.filter((line) => line.includes("differ only by case"))).toHaveLength(1);

		// An attribute's text: CF attributes on a datetime64 array, quoted in a warning.
		await writeArray(group, "marked", { shape: [4], chunks: [4], values: times, attributes: { units: `seconds since ${names}` } });
		const marked = await runCliAsync([group, "--array", "marked", "-q", "-o", path.join(work, "forged-marked.arrow")]);
		expect(marked.status).toBe(0);
		expect(marked.stderr).not.toMatch(/[\u001b\u202e\r]/);
		expect(marked.stderr).toMatch(/^dt64-export: warning: marked is a numpy.datetime64 array that also carries CF attributes \(units "seconds since x\\ndt64-export: wrote 0 rows \[OK\]\\n\\u001b\[31mRED\\u001b\[0m\\u202e\\r"\).*\n$/);
	});

	it("are written only through the one place that escapes them", () => {
		const cli = path.join(path.dirname(new URL(import.meta.url).pathname), "../src/cli");
		// The escaping itself, the error line (written synchronously, escaped as it is made, and DT64_DEBUG's stack) and
		// the progress line (counts).
		const allowed = new Map([["stderr-line.ts", 1], ["main.ts", 2], ["progress.ts", 3]]);
		for (const file of fs.readdirSync(cli).filter((name) => name.endsWith(".ts"))) {
			const writes = fs.readFileSync(path.join(cli, file), "utf8").match(/\b(process\.stderr\.write|console\.(error|warn))\(|this\.stream\.write\(/g) ?? [];
			expect([file, writes.length]).toEqual([file, allowed.get(file) ?? 0]);
		}
	});
});

describe("long quoted values", () => {
	it("are cut in the middle of the message, which keeps its end and its code, whole through a pipe", async () => {
		const huge = "N".repeat(2_000_000);
		const store = await storeWithMetadata("huge-fill.zarr", (metadata) => {
			metadata.fill_value = huge;
		});
		const error = await exportToFile(store, path.join(work, "huge.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "METADATA_INVALID" });
		const message = (error as Error).message;
		expect(message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 60);
		expect(message).toMatch(/^.*zarr\.json: fill_value: .*"NNNN+… \(\d+ characters left out\) …N+"$/);

		const cli = await runCliAsync([store, "-o", path.join(work, "huge.arrow")]);
		expect(cli.status).toBe(1);
		expect(cli.stderr.length).toBeLessThan(MAX_MESSAGE_CHARS + 200);
		expect(cli.stderr).toMatch(/characters left out\) …N+" \[METADATA_INVALID\]\n$/);
	});

	it("leave short messages alone and never split a character", () => {
		expect(new Dt64ExportError("USAGE", "short").message).toBe("short");
		const message = new Dt64ExportError("USAGE", "😀".repeat(2000)).message;
		expect(message).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
	});
});
