import { fstatSync } from "node:fs";

/**
 * The open descriptor of this process an output path names, or undefined: `/dev/stdout` (1), `/dev/stderr` (2),
 * `/dev/fd/N` and `/proc/self/fd/N` (or this process's `/proc/<pid>/fd/N`), when that descriptor is open. Such a path
 * is the shell's redirection (`> f`, `>> log`, `3> f`), not a file to replace: opened again it would be the file
 * behind it, truncated, and replaced by a rename the redirection would never see (what was appended before it lost,
 * and what the shell writes after it sent to the old, unlinked file). It is written through the descriptor itself.
 */
export function namedDescriptor(target: string): number | undefined {
	if (process.platform === "win32") return undefined;
	const match = /^\/(?:dev\/(?:(stdout)|(stderr)|fd\/(\d+))|proc\/(?:self|(\d+))\/fd\/(\d+))$/.exec(target);
	if (match === null) return undefined;
	const [, stdout, stderr, devFd, pid, procFd] = match;
	if (pid !== undefined && Number(pid) !== process.pid) return undefined;
	const fd = stdout !== undefined ? 1 : stderr !== undefined ? 2 : Number(devFd ?? procFd);
	try {
		fstatSync(fd);
	} catch {
		return undefined;
	}
	return fd;
}
