/**
 * A stand-in for an Azure Blob account in tests (what a connection string's BlobEndpoint points at, as for
 * Azurite): `/<account>/<container>/<blob>` with single ranges, and List Blobs (`?restype=container&comp=list`,
 * delimiter, small pages with NextMarker). A private container wants a SAS token whose `sig` it knows and whose
 * `se` (expiry) is in the future; requests must name an API version (x-ms-version), as the service wants.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { bucketKeys, listEntries } from "./bucket-folder.js";
import { objectRead } from "./byte-range.js";
import { sendAnswer, serveOnLoopback } from "./loopback-server.js";

export interface AzureServerOptions {
	readonly root: string;
	readonly account: string;
	/** Containers readable only with a SAS token carrying this `sig`. */
	readonly privateContainers?: Readonly<Record<string, string>>;
	readonly pageSize?: number;
}

export interface AzureRequest {
	readonly path: string;
	readonly query: URLSearchParams;
	readonly range: string | undefined;
	readonly status: number;
}

export interface AzureServer {
	/** The account's Blob endpoint, e.g. `http://127.0.0.1:4321/devaccount`. */
	readonly endpoint: string;
	readonly requests: AzureRequest[];
	close(): Promise<void>;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export async function startAzureServer(options: AzureServerOptions): Promise<AzureServer> {
	const requests: AzureRequest[] = [];
	const pageSize = options.pageSize ?? 5000;

	async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? "/", "http://localhost");
		const answer = (status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
			requests.push({ path: url.pathname, query: url.searchParams, range: request.headers.range, status });
			sendAnswer(request, response, status, body, headers);
		};
		const error = (status: number, code: string) => answer(status, `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`, { "Content-Type": "application/xml" });

		if (request.headers["x-ms-version"] === undefined) return error(400, "MissingRequiredHeader");
		const [account, container = "", ...rest] = url.pathname.slice(1).split("/").map(decodeURIComponent);
		const folder = path.join(options.root, container);
		if (account !== options.account || container === "" || container.startsWith(".") || !(await stat(folder).catch(() => undefined))?.isDirectory()) {
			return error(404, "ContainerNotFound");
		}
		const signature = options.privateContainers?.[container];
		if (signature !== undefined) {
			if (!url.searchParams.has("sig")) return error(401, "NoAuthenticationInformation");
			const expiry = Date.parse(url.searchParams.get("se") ?? "");
			if (url.searchParams.get("sig") !== signature || !(expiry > Date.now())) return error(403, "AuthenticationFailed");
		}
		if (url.searchParams.get("restype") === "container" && url.searchParams.get("comp") === "list") {
			const prefix = url.searchParams.get("prefix") ?? "";
			const delimiter = url.searchParams.get("delimiter") ?? "";
			const entries = listEntries(await bucketKeys(folder), prefix, delimiter);
			const start = Number(url.searchParams.get("marker") || "0");
			const page = entries.slice(start, start + pageSize);
			const next = start + pageSize < entries.length ? String(start + pageSize) : "";
			const blobs = page.map(({ name, isPrefix }) =>
				isPrefix ? `<BlobPrefix><Name>${escapeXml(name)}</Name></BlobPrefix>` : `<Blob><Name>${escapeXml(name)}</Name><Properties><Content-Length>0</Content-Length></Properties></Blob>`,
			);
			const body = `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ContainerName="${container}"><Prefix>${escapeXml(prefix)}</Prefix><Delimiter>${delimiter}</Delimiter><Blobs>${blobs.join("")}</Blobs><NextMarker>${next}</NextMarker></EnumerationResults>`;
			return answer(200, body, { "Content-Type": "application/xml" });
		}
		const file = path.join(folder, ...rest);
		if (rest.length === 0 || rest.some((part) => part === "" || part === "." || part === "..") || !(await stat(file).catch(() => undefined))?.isFile()) {
			return error(404, "BlobNotFound");
		}
		const read = objectRead(await readFile(file), request.headers.range);
		return read.status === 416 ? error(416, "InvalidRange") : answer(read.status, read.body, read.headers);
	}

	const server = await serveOnLoopback(handle);
	return { endpoint: `http://127.0.0.1:${server.port}/${options.account}`, requests, close: server.close };
}
