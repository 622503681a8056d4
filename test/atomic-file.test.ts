import { pbkdf2 } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it, vi } from "vitest";
import { AtomicFileWriter, remainingAfter, strayTemporaryFiles } from "../src/output/atomic-file.js";
import { spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { tempDir } from "./support/cli.js";


/** 1 MiB pieces whose bytes say where they are, so a misplaced or repeated piece shows. */
function piece(index: number): Buffer {
	const bytes = Buffer.alloc(1 << 20);
	for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((index << 20) + i, i);
	return bytes;
}

describe("strayTemporaryFiles: what an export killed outright left beside its target", () => {
	it("names the temporary files of processes that no longer run, never a running one's or another name's", () => {
		const dir = tempDir("dt64-atomic-");
		const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
		const names = {
			dead: `.out.arrow.${dead}.0123abcd.tmp`,
			running: `.out.arrow.${process.ppid}.0123abcd.tmp`,
			otherTarget: `.other.arrow.${dead}.0123abcd.tmp`,
			notOurs: `.out.arrow.${dead}.tmp`,
		};
		for (const name of Object.values(names)) fs.writeFileSync(path.join(dir, name), "12345");
		expect(strayTemporaryFiles(path.join(dir, "out.arrow"))).toEqual([{ path: path.join(dir, names.dead), bytes: 5 }]);
		// Through a symbolic link, the files beside the file it names (where the writer puts them).
		const elsewhere = tempDir("dt64-atomic-");
		fs.symlinkSync(path.join(dir, "out.arrow"), path.join(elsewhere, "link.arrow"));
		fs.writeFileSync(path.join(dir, "out.arrow"), "");
		expect(strayTemporaryFiles(path.join(elsewhere, "link.arrow"))).toEqual([{ path: path.join(dir, names.dead), bytes: 5 }]);
		expect(fs.readdirSync(dir).length).toBe(5);
	});

	it("one of this process's pid is its own only while one of its writers holds it: else an earlier process had the pid (a container's pid 1 after a restart)", () => {
		const dir = tempDir("dt64-atomic-");
		const earlier = path.join(dir, `.out.arrow.${process.pid}.0123abcd.tmp`);
		fs.writeFileSync(earlier, "1234567");
		const writer = new AtomicFileWriter(path.join(dir, "out.arrow"), { overwrite: false });
		try {
			expect(path.basename(writer.tempPath)).toMatch(new RegExp(`^\\.out\\.arrow\\.${process.pid}\\.[0-9a-f]{8}\\.tmp$`));
			// Through a relative path as through an absolute one.
			const relative = path.relative(process.cwd(), path.join(dir, "out.arrow"));
			for (const target of [path.join(dir, "out.arrow"), relative]) expect(strayTemporaryFiles(target)).toEqual([{ path: earlier, bytes: 7 }]);
		} finally {
			writer.destroy();
		}
	});
});

describe("AtomicFileWriter", () => {
	it("through a symbolic link to a file that does not exist: refused unless overwriting, which writes that file and keeps the link", async () => {
		const dir = tempDir("dt64-atomic-");
		const link = path.join(dir, "out.bin");
		const target = path.join(dir, "real", "target.bin");
		fs.mkdirSync(path.dirname(target));
		fs.symlinkSync(target, link);
		expect(() => new AtomicFileWriter(link)).toThrow(expect.objectContaining({ code: "OUTPUT_EXISTS", message: `${link} is a symbolic link to ${target}, which does not exist: overwriting writes that file` }));
		await pipeline(Readable.from([piece(1)]), new AtomicFileWriter(link, { overwrite: true }));
		expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
		expect(fs.readFileSync(target).equals(piece(1))).toBe(true);
		expect(fs.readdirSync(path.dirname(target))).toEqual(["target.bin"]);
		// A link into a folder that does not exist, and a link to a link to nothing.
		const lost = path.join(dir, "lost.bin");
		fs.symlinkSync(path.join(dir, "nowhere", "t.bin"), lost);
		expect(() => new AtomicFileWriter(lost, { overwrite: true })).toThrow(expect.objectContaining({ code: "OUTPUT_INVALID" }));
		const chained = path.join(dir, "chained.bin");
		fs.symlinkSync("hop.bin", chained);
		fs.symlinkSync("end.bin", path.join(dir, "hop.bin"));
		await pipeline(Readable.from([piece(2)]), new AtomicFileWriter(chained, { overwrite: true }));
		expect(fs.readFileSync(path.join(dir, "end.bin")).equals(piece(2))).toBe(true);
		expect(fs.lstatSync(path.join(dir, "hop.bin")).isSymbolicLink()).toBe(true);
	});

	it("writes every byte in order across background flushes, then renames; nothing is left beside it", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const count = 80; // 80 MiB: two background flushes start on the way
		await pipeline(Readable.from((function* () { for (let i = 0; i < count; i++) yield piece(i); })()), new AtomicFileWriter(target));
		const written = fs.readFileSync(target);
		expect(written.length).toBe(count << 20);
		for (const i of [0, 31, 32, 33, 64, 79]) expect(written.subarray(i << 20, (i + 1) << 20).equals(piece(i))).toBe(true);
		expect(fs.readdirSync(dir)).toEqual(["out.bin"]);
	});

	it("closes its file only once a write in flight has returned: destroyed mid-write, it never writes into a file opened next", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const other = path.join(dir, "other.bin");
		const writer = new AtomicFileWriter(target);
		writer.on("error", () => {});
		const closed = new Promise((resolve) => writer.on("close", resolve));
		// Every thread of libuv's pool busy for a while: the write below waits in the pool's queue.
		const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
		const busy = Array.from({ length: threads }, () => promisify(pbkdf2)("password", "salt", 200_000, 64, "sha512"));
		writer.write(piece(0));
		writer.destroy(new Error("the export failed"));
		// open(2) takes the lowest free descriptor: the writer's, had destroy closed it under the queued write, which
		// would then write its megabyte here (a store's chunk file, in the fuzz test that found it).
		const fd = fs.openSync(other, "w");
		try {
			await Promise.all(busy);
			await closed;
		} finally {
			fs.closeSync(fd);
		}
		expect(fs.statSync(other).size).toBe(0);
		expect(fs.readdirSync(dir)).toEqual(["other.bin"]);
	});

	it("takes a temporary name no file has: a file or link of that name is left alone and another name is tried", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const taken = path.join(dir, `.out.bin.${process.pid}.80000000.tmp`);
		fs.writeFileSync(taken, "someone else's");
		fs.symlinkSync(path.join(dir, "elsewhere"), path.join(dir, `.out.bin.${process.pid}.40000000.tmp`));
		const random = vi.spyOn(Math, "random").mockReturnValueOnce(0.5).mockReturnValueOnce(0.25).mockReturnValueOnce(0.125);
		try {
			const writer = new AtomicFileWriter(target);
			expect(path.basename(writer.tempPath)).toBe(`.out.bin.${process.pid}.20000000.tmp`);
			await pipeline(Readable.from([piece(0)]), writer);
		} finally {
			random.mockRestore();
		}
		expect(fs.readFileSync(target).equals(piece(0))).toBe(true);
		expect(fs.readFileSync(taken, "utf8")).toBe("someone else's");
		expect(fs.existsSync(path.join(dir, "elsewhere"))).toBe(false);
		// Every name taken: a WRITE_FAILED error naming the folder, after a few names, not a loop.
		const always = vi.spyOn(Math, "random").mockReturnValue(0.5);
		try {
			expect(() => new AtomicFileWriter(path.join(dir, "out.bin"), { overwrite: true })).toThrow(expect.objectContaining({ code: "WRITE_FAILED", message: expect.stringContaining(`cannot write in ${dir}: EEXIST`) }));
			expect(always.mock.calls.length).toBeGreaterThan(1);
		} finally {
			always.mockRestore();
		}
	});

	it("refuses a folder as its target, with or without overwrite, before anything is written", () => {
		const dir = tempDir("dt64-atomic-");
		const folder = path.join(dir, "out.arrow");
		fs.mkdirSync(folder);
		for (const overwrite of [false, true]) {
			expect(() => new AtomicFileWriter(folder, { overwrite })).toThrow(expect.objectContaining({ code: "OUTPUT_INVALID", path: folder, message: `${folder} is a folder: name a file to write` }));
		}
		expect(fs.readdirSync(dir)).toEqual(["out.arrow"]);
		expect(fs.readdirSync(folder)).toEqual([]);
	});

	it("a failure after background flushes leaves neither the target nor the temporary file", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const failing = Readable.from(
			(function* () {
				for (let i = 0; i < 40; i++) yield piece(i);
				throw new Error("source failed");
			})(),
		);
		await expect(pipeline(failing, new AtomicFileWriter(target))).rejects.toThrow("source failed");
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("without overwrite, never replaces a file created at the target during the export: the export fails, that file stays", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const racing = Readable.from(
			(function* () {
				yield piece(0);
				// Another program takes the name after the writer checked it and before the file is moved there.
				fs.writeFileSync(target, "another program's file");
				yield piece(1);
			})(),
		);
		await expect(pipeline(racing, new AtomicFileWriter(target))).rejects.toMatchObject({ code: "OUTPUT_EXISTS", path: target });
		expect(fs.readFileSync(target, "utf8")).toBe("another program's file");
		expect(fs.readdirSync(dir)).toEqual(["out.bin"]);
	});

	it("with overwrite, replaces a file created at the target during the export, as --force asks", async () => {
		const dir = tempDir("dt64-atomic-");
		const target = path.join(dir, "out.bin");
		const racing = Readable.from(
			(function* () {
				yield piece(0);
				fs.writeFileSync(target, "another program's file");
			})(),
		);
		await pipeline(racing, new AtomicFileWriter(target, { overwrite: true }));
		expect(fs.readFileSync(target).equals(piece(0))).toBe(true);
		expect(fs.readdirSync(dir)).toEqual(["out.bin"]);
	});

	it("resumes a short write with the bytes not yet written, without copying", () => {
		const a = Buffer.from("abcd");
		const b = Buffer.from("efgh");
		const c = Buffer.from("ij");
		expect(remainingAfter([a, b, c], 0).map(String)).toEqual(["abcd", "efgh", "ij"]);
		expect(remainingAfter([a, b, c], 5).map(String)).toEqual(["fgh", "ij"]);
		expect(remainingAfter([a, b, c], 8).map(String)).toEqual(["ij"]);
		expect(remainingAfter([a, b, c], 9).map(String)).toEqual(["j"]);
		expect(remainingAfter([a, b, c], 5)[0].buffer).toBe(b.buffer);
	});
});
