/**
 * An export to a connection whose reader goes away before the end (robust36: 2). Through a pipe (`| head`, in
 * test/cli.test.ts) that ends the export quietly, exit 0; through a socket the reader is a program that was sent a
 * file and got a truncated one: `-o -` to a Unix socket (a Node parent's `stdio: "pipe"`) whose reader closes it
 * mid-export exits 1 with one line (it exited 0 on EPIPE, as for a pipe; a TCP connection's reset, ECONNRESET, already
 * failed), and the library's export to a socket closed by its peer rejects. The output is megabytes, past a Unix
 * socket's buffers (about 200 kB), and the reader stops after its first bytes: nothing here depends on timing. A reset
 * after the last bytes were handed to the system is seen by no sender (see README, Limits).
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/index.js";
import { BIN, REPO, tempDir } from "./support/cli.js";

const ROWS = 600_000;

/** A store whose Parquet export is about 4.8 MB: pseudo-random seconds, which no encoding packs small. */
async function largeStore(): Promise<string> {
	const store = path.join(tempDir(), "large.zarr");
	let state = 12345;
	const values = BigInt64Array.from({ length: ROWS }, () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return 946684800n + BigInt(state);
	});
	await writeArray(store, "", { shape: [ROWS], chunks: [100_000], values, dimensionNames: ["time"] });
	return store;
}

interface Exit {
	status: number | null;
	stderr: string;
	received: number;
}

/** The CLI writing `-o -` to `stdout` (a socket): its exit, once its reader has gone after `received` bytes. */
function exitOf(child: ReturnType<typeof spawn>, received: () => number): Promise<Exit> {
	let stderr = "";
	child.stderr!.on("data", (bytes: Buffer) => (stderr += bytes.toString()));
	return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr, received: received() })));
}

describe("-o - to a socket whose reader goes away before the end: exit 1, one line (a pipe's reader: exit 0)", () => {
	for (const format of ["parquet", "arrow"]) {
		it(`${format}: a Unix socket (a Node parent's stdio "pipe") closed by its reader after its first bytes`, async () => {
			const store = await largeStore();
			const child = spawn(process.execPath, [BIN, store, "--to", format, "-o", "-"], { stdio: ["ignore", "pipe", "pipe"] });
			let received = 0;
			child.stdout!.on("data", (bytes: Buffer) => {
				received += bytes.length;
				child.stdout!.destroy();
			});
			const exit = await exitOf(child, () => received);
			expect(exit.received).toBeGreaterThan(0);
			expect(exit.stderr).toMatch(/^dt64-export: cannot write to stdout: write (EPIPE|ECONNRESET) \[WRITE_FAILED\]\n$/);
			expect(exit.status).toBe(1);
		});
	}
});

describe("library: an export to a socket whose peer closes it after its first bytes rejects WRITE_FAILED", () => {
	for (const format of ["parquet", "arrow", "arrow-stream"] as const) {
		it(format, async () => {
			const store = await largeStore();
			// A Unix socket: its buffers (about 200 kB) hold a small part of the megabytes the export writes.
			const address = path.join(tempDir(), "reader.sock");
			const server = net.createServer((socket) => {
				socket.on("error", () => undefined);
				socket.once("data", () => socket.destroy());
			});
			await new Promise<void>((resolve) => server.listen(address, resolve));
			try {
				const connection = net.connect(address);
				await new Promise((resolve) => connection.once("connect", resolve));
				await expect(exportTable(store, connection, { format })).rejects.toMatchObject({ code: "WRITE_FAILED", message: expect.stringMatching(/^cannot write to the output stream: (read|write) (EPIPE|ECONNRESET)$/) });
			} finally {
				server.close();
			}
		});
	}
});

/** A Unix socket whose peer has closed it already, kept open for writing (a Node parent's stdio "pipe" after its reader went). */
async function socketReaderGone(): Promise<net.Socket> {
	const address = path.join(tempDir(), "gone.sock");
	const server = net.createServer((socket) => socket.destroy());
	await new Promise<void>((resolve) => server.listen(address, resolve));
	const connection = net.connect({ path: address, allowHalfOpen: true });
	connection.resume();
	await new Promise((resolve) => connection.once("end", resolve));
	server.close();
	return connection;
}

/** A FIFO's writing end whose reader has closed it already (`| head` done before the CLI writes). */
function pipeReaderGone(): number {
	const fifo = path.join(tempDir(), "gone.fifo");
	execFileSync("mkfifo", [fifo]);
	const reader = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
	const writer = fs.openSync(fifo, fs.constants.O_WRONLY);
	fs.closeSync(reader);
	return writer;
}

/** The CLI run with `stdout` (a socket or a FIFO whose reader has gone before its first write): its exit and stderr. */
function runWithStdout(args: string[], stdout: net.Socket | number, cwd: string): Promise<Exit> {
	const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", stdout, "pipe"] });
	return exitOf(child, () => 0);
}

/**
 * What the CLI writes on stdout besides an export's data, under the same rule (leftovers15: 2): `inspect`'s report, an
 * export's `--json` summary and `commit --json` ended quietly, exit 0, on EPIPE from a socket too.
 */
describe("inspect, --json summaries: stdout a socket whose reader has gone is WRITE_FAILED, exit 1; a pipe's, exit 0", () => {
	const store = path.join(REPO, "data/weather-station.zarr");
	const runs: [string, (work: string) => string[]][] = [
		["inspect", () => ["inspect", store]],
		["inspect --json", () => ["inspect", store, "--json"]],
		["an export's --json summary", () => [store, "-o", "out.parquet", "--json"]],
		["a dataset export's --json summary", () => [store, "--partition-by", "month", "-o", "ds", "--json"]],
		["commit --json", (work) => {
			execFileSync(process.execPath, [BIN, store, "--partition-by", "month", "--part", "0/1", "-o", "ds", "-q"], { cwd: work });
			return ["commit", "ds", "--json"];
		}],
	];
	for (const [name, argsIn] of runs) {
		it(`${name}: a socket`, async () => {
			const work = tempDir();
			const args = argsIn(work);
			const socket = await socketReaderGone();
			try {
				const exit = await runWithStdout(args, socket, work);
				expect(exit.stderr).toBe("dt64-export: cannot write to stdout: write EPIPE [WRITE_FAILED]\n");
				expect(exit.status).toBe(1);
			} finally {
				socket.destroy();
			}
		});
		it(`${name}: a pipe`, async () => {
			const work = tempDir();
			const args = argsIn(work);
			const fifo = pipeReaderGone();
			try {
				const exit = await runWithStdout(args, fifo, work);
				expect(exit.stderr).toBe("");
				expect(exit.status).toBe(0);
			} finally {
				fs.closeSync(fifo);
			}
		});
	}
});
