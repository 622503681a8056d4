/**
 * A folder served over HTTP by test/support/http-server.ts for the whole of a test file: started before its tests,
 * closed after them. A test may set `fault` to inject failures into its own requests; after each test the fault is
 * cleared and the server's request log forgotten, so that no test sees another's.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import { startServer, type Fault, type FaultRequest, type TestServer } from "./http-server.js";

export interface ServedFolder {
	/** The running server: read it in tests and hooks, not when the file is loaded (it starts in beforeAll). */
	readonly server: TestServer;
	fault: ((request: FaultRequest) => Fault | undefined) | undefined;
}

/** Serves `root` (or the folder it returns, when it is made by an earlier beforeAll) to the tests of this file. */
export function serveFolder(root: string | (() => string)): ServedFolder {
	let server: TestServer | undefined;
	const served: ServedFolder = {
		get server() {
			if (server === undefined) throw new Error("the served folder's server starts in beforeAll: read it in a test or a hook");
			return server;
		},
		fault: undefined,
	};
	beforeAll(async () => {
		server = await startServer(typeof root === "string" ? root : root(), { faults: (request) => served.fault?.(request) });
	});
	afterAll(() => server?.close());
	afterEach(() => {
		served.fault = undefined;
		server?.reset();
	});
	return served;
}
