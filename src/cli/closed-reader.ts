/**
 * The reader of stdout (or of a descriptor the CLI writes in place) going away mid-export. Through a pipe (`| head`,
 * a FIFO) that is the reader's right: it took what it wanted, and the export ends quietly, exit 0. Through a socket (a
 * TCP connection handed over as stdout by systemd, inetd or socat, a Node parent's `stdio: "pipe"`) the reader is a
 * program that was sent a file: its peer closing or resetting the connection before the end leaves it a truncated
 * file, which the export reports (WRITE_FAILED, exit 1) as it reports ECONNRESET, never as a success.
 */
import * as fs from "node:fs";
import type { Writable } from "node:stream";

/** Whether `fd` is a socket: there EPIPE is a connection lost, not a pipe's reader done. */
function isSocket(fd: number): boolean {
	try {
		return fs.fstatSync(fd).isSocket();
	} catch {
		return false;
	}
}

/** `stream` (writing `fd`), made to end the process quietly when a pipe's reader closes it; a socket's EPIPE stays an error. */
export function endQuietlyOnClosedPipe(stream: Writable, fd: number): Writable {
	if (isSocket(fd)) return stream;
	return stream.on("error", (error: NodeJS.ErrnoException) => {
		// The reader closed the pipe (`| head`): that is its right, not a failure.
		if (error.code === "EPIPE") process.exit(0);
	});
}
