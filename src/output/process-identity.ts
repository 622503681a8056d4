/**
 * Who a process is, as a lock file records it, and whether the process a lock names is still running. A process
 * can be checked only from its own host: there `process.kill(pid, 0)` tells whether a pid exists. On Linux the
 * record also holds what makes a pid unambiguous: the PID namespace (containers that share a host name, with host
 * networking for one, do not share pids), the boot (pids start over after a reboot) and the process's start time
 * (a pid reused by a later process is not the holder).
 */
import * as fs from "node:fs";
import * as os from "node:os";

export interface ProcessIdentity {
	readonly pid: number;
	readonly host: string;
	/** Linux: `pid:[4026531836]`, the PID namespace's inode. */
	readonly pidNamespace?: string;
	/** Linux: `/proc/sys/kernel/random/boot_id`. */
	readonly bootId?: string;
	/** Linux: the process's start, in clock ticks after boot (`/proc/<pid>/stat`, field 22). */
	readonly processStart?: string;
}

/** What can be known of a recorded process from here. */
export type ProcessState = "running" | "ended" | "elsewhere";

function readText(file: string): string | undefined {
	try {
		return fs.readFileSync(file, "utf8").trim();
	} catch {
		return undefined;
	}
}

function pidNamespace(): string | undefined {
	try {
		return fs.readlinkSync("/proc/self/ns/pid");
	} catch {
		return undefined;
	}
}

/** Field 22 of `/proc/<pid>/stat`, counted after the command name (which may hold spaces and parentheses). */
function processStart(pid: number | "self"): string | undefined {
	const stat = readText(`/proc/${pid}/stat`);
	if (stat === undefined) return undefined;
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** This process, as a lock records it. */
export function thisProcess(): ProcessIdentity {
	return { pid: process.pid, host: os.hostname(), pidNamespace: pidNamespace(), bootId: readText("/proc/sys/kernel/random/boot_id"), processStart: processStart("self") };
}

/** Two recorded values differ only if both are known. */
const differ = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a !== b;

/**
 * Whether `holder` still runs: `elsewhere` when it is not of this host (nor of this PID namespace), so it cannot
 * be checked. `holdsHere` answers for this very process (a pid equal to ours is this process only if it holds the
 * lock; otherwise it is an earlier process that had our pid, a container's pid 1 started again).
 */
export function processState(holder: ProcessIdentity, holdsHere: () => boolean): ProcessState {
	const self = thisProcess();
	if (holder.host !== self.host || differ(holder.pidNamespace, self.pidNamespace)) return "elsewhere";
	if (differ(holder.bootId, self.bootId)) return "ended";
	if (holder.pid === self.pid) return holdsHere() ? "running" : "ended";
	if (!pidExists(holder.pid)) return "ended";
	return differ(holder.processStart, processStart(holder.pid)) ? "ended" : "running";
}

/** Whether a process of that pid runs on this host (one of another user's counts: EPERM). */
export function pidExists(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}
