/**
 * The reader of stdout (or of a descriptor the CLI writes in place) going away before the CLI is done with it. One rule
 * for everything the CLI writes there (an export's data, `inspect`'s report, a `--json` summary, `commit --json`):
 * through a pipe (`| head`, a FIFO) that is the reader's right: it took what it wanted, and the CLI ends quietly, exit
 * 0. Through a socket (a TCP connection handed over as stdout by systemd, inetd or socat, a Node parent's `stdio:
 * "pipe"`) the reader is a program that was sent a file or a document: its peer closing or resetting the connection
 * before the end leaves it a truncated one, which the CLI reports (WRITE_FAILED, exit 1) as it reports ECONNRESET,
 * never as a success.
 */
import * as fs from "node:fs";
import type { Writable } from "node:stream";
import { writeFailure } from "../errors.js";

/** Whether `fd` is a socket: there EPIPE is a connection lost, not a pipe's reader done. */
function isSocket(fd: number): boolean {
	try {
		return fs.fstatSync(fd).isSocket();
	} catch {
		return false;
	}
}

/** Whether `error`, failing a write to `fd`, is a pipe's reader gone (EPIPE on anything but a socket): no failure. */
function isPipeReaderGone(error: NodeJS.ErrnoException, fd: number): boolean {
	return error.code === "EPIPE" && !isSocket(fd);
}

/** `stream` (writing `fd`), made to end the process quietly when a pipe's reader closes it; a socket's EPIPE stays an error. */
export function endQuietlyOnClosedPipe(stream: Writable, fd: number): Writable {
	if (isSocket(fd)) return stream;
	return stream.on("error", (error: NodeJS.ErrnoException) => {
		// The reader closed the pipe (`| head`): that is its right, not a failure.
		if (error.code === "EPIPE") process.exit(0);
	});
}

/**
 * Writes `text` (a report, a summary) on stdout. Resolves once written, or once a pipe's reader has gone (it has what
 * it wanted); rejects WRITE_FAILED ("cannot write to stdout: …") for any other failure, a socket's EPIPE among them.
 */
export function writeToStdout(text: string): Promise<void> {
	return new Promise((resolve, reject) => {
		const written = (error?: Error | null) => {
			if (error && !isPipeReaderGone(error as NodeJS.ErrnoException, 1)) reject(writeFailure("stdout", error));
			else resolve();
		};
		// A failed write is also emitted as an event, which would otherwise end the process as an uncaught error.
		process.stdout.once("error", written);
		process.stdout.write(text, written);
	});
}
