/**
 * `-o /dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N` name the shell's redirection: written through that descriptor, as
 * `-o -` writes stdout, whatever it is (trial 25, finding 15). Into a regular file they were refused for lacking an
 * extension, then for existing, and with `--force` the file behind them was replaced by a rename: what `>>` had
 * appended before was lost, and what the shell wrote after went to the old, unlinked file.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO, tempDir } from "./support/cli.js";

const STORE = path.join(REPO, "data/weather-station.zarr");

/** Runs the CLI with descriptor 1 (and 3) open on `file` for appending; then appends `after` through that descriptor. */
function runInto(file: string, args: string[], after: string): { status: number | null; stderr: string } {
	const fd = fs.openSync(file, "a");
	try {
		const result = spawnSync(process.execPath, [BIN, STORE, ...args], { stdio: ["ignore", fd, "pipe", fd] });
		fs.writeSync(fd, after);
		return { status: result.status, stderr: result.stderr.toString() };
	} finally {
		fs.closeSync(fd);
	}
}

describe("an output naming an open descriptor", () => {
	it("writes through it into a file: appended after what was there, before what comes after, no extension needed", () => {
		if (process.platform === "win32") return;
		const work = tempDir("dt64-fd-");
		const reference = path.join(work, "reference.arrow");
		expect(spawnSync(process.execPath, [BIN, STORE, "-q", "-o", reference]).status).toBe(0);
		const arrow = fs.readFileSync(reference);
		for (const [output, extra] of [
			["/dev/stdout", []],
			["/dev/fd/3", ["--force"]],
			["/proc/self/fd/1", ["--to", "arrow"]],
		] as const) {
			const file = path.join(work, "log.arrow");
			fs.writeFileSync(file, "PRE\n");
			const result = runInto(file, ["-q", "-o", output, ...extra], "AFTER\n");
			expect(result.stderr, output).toBe("");
			expect(result.status, output).toBe(0);
			expect(fs.readFileSync(file).equals(Buffer.concat([Buffer.from("PRE\n"), arrow, Buffer.from("AFTER\n")])), output).toBe(true);
		}
		expect(fs.readdirSync(work).sort()).toEqual(["log.arrow", "reference.arrow"]);
	});
});
