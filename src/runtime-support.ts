/**
 * What the Node running this package may lack for an export, said as such instead of as a missing file or a bug
 * (trial 25, findings 05 and 06): WebAssembly itself (`--jitless`), the address space a WebAssembly memory reserves
 * (Node reserves about 10 GB of it per memory as a guard, which `ulimit -v`, a batch scheduler's memory limit, may
 * not allow), and the global fetch the http(s) and object stores send their requests with (`--no-experimental-fetch`).
 */
import { readFileSync } from "node:fs";
import { Dt64ExportError } from "./errors.js";

/**
 * Why `what` (the WebAssembly module being loaded) cannot run in this Node, or undefined when `error` says nothing of
 * it; a working folder that was removed (process.cwd() failing, as resolving a relative path does) is said as such.
 */
export function runtimeFailure(error: unknown, what = "dt64-export's WebAssembly"): Dt64ExportError | undefined {
	if ((globalThis as { WebAssembly?: unknown }).WebAssembly === undefined) {
		return new Dt64ExportError("RUNTIME_UNSUPPORTED", `${what} cannot run: this Node runs without WebAssembly (started with --jitless?); run it without that flag`, { cause: error });
	}
	if ((error as NodeJS.ErrnoException | undefined)?.syscall === "uv_cwd") {
		return new Dt64ExportError(
			"USAGE",
			"the working folder no longer exists (it was removed while this shell was in it), so a relative path names nothing: cd to a folder that exists, or give absolute paths",
			{ cause: error },
		);
	}
	const message = (error as Error | undefined)?.message ?? "";
	if (!(error instanceof RangeError)) return undefined;
	const limit = addressSpaceLimitKiB();
	if (/array buffer allocation failed/i.test(message)) {
		// V8's refusal of an ArrayBuffer (a chunk's, a batch's): said as the memory it is, not as a bug (trial 28,
		// finding 02: `Array buffer allocation failed [INTERNAL]` under ulimit -v).
		const limited = limit === undefined ? "the memory this process may have is exhausted" : `the address space this process may reserve is limited (ulimit -v ${limit})`;
		return new Dt64ExportError(
			"RUNTIME_UNSUPPORTED",
			`memory for the export's buffers could not be allocated (${message}): ${limited}; raise that limit, or read fewer chunks at once (\`concurrency\`; a chunk's values are held whole as it is decoded)`,
			{ cause: error },
		);
	}
	if (!/out of memory|cannot allocate wasm memory|reserve/i.test(message)) return undefined;
	const because = limit === undefined ? "the address space this process may reserve is too small for it" : `the address space this process may reserve is limited (ulimit -v ${limit})`;
	return new Dt64ExportError(
		"RUNTIME_UNSUPPORTED",
		`${what} cannot be instantiated (${message}): ${because}; raise that limit, or run Node with --disable-wasm-trap-handler (NODE_OPTIONS=--disable-wasm-trap-handler), which reserves only the memory used`,
		{ cause: error },
	);
}

/** The process's address space limit (RLIMIT_AS, what `ulimit -v` sets) in KiB, when it is one and can be read (Linux). */
function addressSpaceLimitKiB(): number | undefined {
	try {
		const line = /^Max address space\s+(\S+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
		const bytes = Number(line?.[1]);
		return Number.isFinite(bytes) ? Math.floor(bytes / 1024) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Refuses a remote store (`location`) in a Node without the global fetch and Headers its requests are made with:
 * started with `--no-experimental-fetch`, each request failed with `Headers is not defined` (INTERNAL).
 */
export function checkGlobalFetch(location: string): void {
	if (typeof globalThis.fetch === "function" && typeof globalThis.Headers === "function") return;
	throw new Dt64ExportError(
		"RUNTIME_UNSUPPORTED",
		`${location}: this Node has no global fetch (started with --no-experimental-fetch?), which http(s):// and object stores are read with; run it without that flag`,
		{ path: location },
	);
}
