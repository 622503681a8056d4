/** The HTTP server of a test's stand-in service: on 127.0.0.1 at a free port, closed with its open connections. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
	readonly port: number;
	close(): Promise<void>;
}

/** Answers `request` with `status`, `body` (left out for HEAD, but counted in Content-Length) and `headers`. */
export function sendAnswer(request: IncomingMessage, response: ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}): void {
	response.writeHead(status, { "Content-Length": String(Buffer.byteLength(body)), ...headers });
	response.end(request.method === "HEAD" ? undefined : body);
}

/** Serves `handle`; a request it fails is answered 500 with `failureBody` of the error (its message by default). */
export async function serveOnLoopback(
	handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
	failureBody: (failure: Error) => string = (failure) => failure.message,
): Promise<LoopbackServer> {
	const server = createServer((request, response) => {
		void handle(request, response).catch((failure: Error) => {
			response.statusCode = 500;
			response.end(failureBody(failure));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return {
		port: (server.address() as AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
