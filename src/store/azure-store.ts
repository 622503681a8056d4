/**
 * `az://container/path` (and `abfs[s]://container@account.dfs.core.windows.net/path`, read through the same
 * account's Blob endpoint) with a SAS token from the environment, or anonymously for public containers. The
 * account is AZURE_STORAGE_ACCOUNT (or the abfs URL's host); the token AZURE_STORAGE_SAS_TOKEN. A connection
 * string (AZURE_STORAGE_CONNECTION_STRING) may give both, and its BlobEndpoint replaces the endpoint (Azurite, a
 * sovereign cloud). Account keys (Shared Key signing) and Microsoft Entra tokens are not used: a SAS token is the
 * credential that needs no signing code and no token service.
 */
import type { EnvOrigin } from "./env-origin.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { BucketStore } from "./bucket-store.js";
import { formatBucketUrl, joinKeyPath, withQuery, type BucketUrl } from "./bucket-url.js";
import { HttpStore, type HttpStoreOptions, type RefusalExplanation, type RequestAuthorizer } from "./http-store.js";
import { notAListing } from "./listing-errors.js";
import { listAllPages } from "./prefix-listing.js";
import { awsUriEncode } from "./sigv4.js";
import { xmlElements, xmlFirst } from "./xml-elements.js";

export interface AzureStoreOptions extends Pick<HttpStoreOptions, "headers" | "retries" | "timeoutMs" | "fetch"> {
	readonly signRequests: boolean;
	readonly env: NodeJS.ProcessEnv;
	/** Where `env` came from, for messages (default: the environment). */
	readonly envOrigin?: EnvOrigin;
}

/** The REST API version asked for: one that takes a plain Range header and lists with delimiters. */
const API_VERSION = "2021-08-06";

interface AzureSettings {
	/** The account's Blob endpoint, without a trailing `/`. */
	readonly endpoint: URL;
	/** The SAS token's query string, without `?`; undefined for anonymous requests. */
	readonly sas: string | undefined;
	/** Where the token came from, as messages name it. */
	readonly source: string;
}

/** `Key=value;Key=value` of a connection string (values may hold `=`). */
function parseConnectionString(text: string): Map<string, string> {
	const fields = new Map<string, string>();
	for (const part of text.split(";")) {
		const equals = part.indexOf("=");
		if (equals > 0) fields.set(part.slice(0, equals).trim().toLowerCase(), part.slice(equals + 1).trim());
	}
	return fields;
}

function accountEndpoint(account: string, suffix = "core.windows.net", protocol = "https"): URL {
	if (!/^[a-z0-9]{3,24}$/.test(account)) throw new UsageError(`invalid Azure storage account name ${JSON.stringify(account)}`);
	return new URL(`${protocol}://${account}.blob.${suffix}`);
}

function azureSettings(account: string | undefined, options: AzureStoreOptions): AzureSettings {
	const { env } = options;
	const connection = env.AZURE_STORAGE_CONNECTION_STRING?.trim() ? parseConnectionString(env.AZURE_STORAGE_CONNECTION_STRING) : undefined;
	const tokenFromEnv = env.AZURE_STORAGE_SAS_TOKEN?.trim().replace(/^\?/, "") || undefined;
	const tokenFromConnection = connection?.get("sharedaccesssignature")?.replace(/^\?/, "") || undefined;
	let endpoint: URL;
	const blobEndpoint = connection?.get("blobendpoint");
	if (blobEndpoint) {
		try {
			endpoint = new URL(blobEndpoint);
		} catch {
			throw new UsageError("AZURE_STORAGE_CONNECTION_STRING: BlobEndpoint is not an absolute URL");
		}
		endpoint.pathname = endpoint.pathname.replace(/\/+$/, "");
	} else {
		const name = account ?? (env.AZURE_STORAGE_ACCOUNT?.trim() || env.AZURE_STORAGE_ACCOUNT_NAME?.trim() || connection?.get("accountname"));
		if (!name) throw new Dt64ExportError("CREDENTIALS_MISSING", "no Azure storage account: set AZURE_STORAGE_ACCOUNT (or use abfs://container@account.dfs.core.windows.net/path)");
		endpoint = accountEndpoint(name, connection?.get("endpointsuffix"), connection?.get("defaultendpointsprotocol"));
	}
	if (!options.signRequests) return { endpoint, sas: undefined, source: "no credentials (anonymous requests)" };
	const inOption = options.envOrigin === "the env option" ? " in the env option" : "";
	if (tokenFromEnv !== undefined) return { endpoint, sas: tokenFromEnv, source: `AZURE_STORAGE_SAS_TOKEN${inOption}` };
	if (tokenFromConnection !== undefined) return { endpoint, sas: tokenFromConnection, source: `AZURE_STORAGE_CONNECTION_STRING (SharedAccessSignature)${inOption}` };
	if (connection?.has("accountkey")) {
		throw new Dt64ExportError(
			"CREDENTIALS_MISSING",
			"AZURE_STORAGE_CONNECTION_STRING holds an account key, which dt64-export does not sign with: give a SAS token (AZURE_STORAGE_SAS_TOKEN) with read and list permissions",
		);
	}
	return { endpoint, sas: undefined, source: "no credentials (anonymous requests)" };
}

class AzureAuthorizer implements RequestAuthorizer {
	constructor(
		readonly container: string,
		readonly settings: AzureSettings,
		readonly unsigned: boolean,
	) {}

	// The SAS token is in every URL's query already; the version is what makes Range and listing behave alike everywhere.
	authorize(_method: string, _url: URL, headers: Headers): void {
		headers.set("x-ms-version", API_VERSION);
	}

	explainFailure(response: Response, body: string): RefusalExplanation {
		const code = xmlFirst(body, "Code");
		const detail = code === undefined ? "" : ` (${code})`;
		if (response.status !== 401 && response.status !== 403) return { detail, accessDenied: false };
		const { sas, source } = this.settings;
		const how = sas === undefined ? source : `a SAS token from ${source}`;
		return {
			detail: `${detail}: container ${JSON.stringify(this.container)} refused a request with ${how}`,
			accessDenied: true,
			fields: { path: `az://${this.container}`, ...(this.unsigned ? { option: "signRequests" } : {}) },
		};
	}

	// A blob of a container that does not exist is answered ContainerNotFound, a missing blob BlobNotFound.
	explainNotFound(_response: Response, body: string, url: URL): { message: string; path: string } | undefined {
		if (xmlFirst(body, "Code") !== "ContainerNotFound") return undefined;
		const path = `az://${this.container}`;
		return { message: `${path}: the container does not exist at ${url.origin} (ContainerNotFound)`, path };
	}
}

/** `abfs[s]://container@account.dfs.core.windows.net/path` as the container, the path and the account. */
export function parseAbfsUrl(location: string): { url: BucketUrl; account: string } {
	const match = /^abfss?:\/\/([^@/]+)@([a-z0-9]+)\.(?:dfs|blob)\.core\.windows\.net(\/[^?#]*)?$/i.exec(location);
	if (match === null) throw new UsageError(`invalid store URL ${JSON.stringify(location)}: expected abfs://<container>@<account>.dfs.core.windows.net/<path>`);
	const segments = (match[3] ?? "").split("/").filter((segment) => segment !== "");
	if (segments.some((segment) => segment === "." || segment === "..")) throw new UsageError(`invalid store URL ${JSON.stringify(location)}: "." and ".." are not path segments`);
	return { url: { scheme: "az", bucket: match[1], prefix: segments.join("/") }, account: match[2].toLowerCase() };
}

export async function openAzureStore(url: BucketUrl, options: AzureStoreOptions, account?: string): Promise<BucketStore> {
	const location = formatBucketUrl(url);
	if (!/^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])?$/.test(url.bucket) && url.bucket !== "$root") {
		throw new UsageError(`${location}: ${JSON.stringify(url.bucket)} is not a valid container name`);
	}
	const settings = azureSettings(account, options);
	const withSas = (target: URL) => {
		const result = new URL(target.href);
		result.search = settings.sas ?? "";
		return result;
	};
	const containerUrl = withSas(joinKeyPath(settings.endpoint, url.bucket, awsUriEncode));
	// Keys are resolved under this URL with its query, the SAS token, kept on every request.
	const store = new HttpStore(joinKeyPath(containerUrl, url.prefix, awsUriEncode), {
		headers: options.headers,
		retries: options.retries,
		timeoutMs: options.timeoutMs,
		fetch: options.fetch,
		authorizer: new AzureAuthorizer(url.bucket, settings, !options.signRequests),
	});
	const list = async (path: string, signal?: AbortSignal) => {
		const full = [url.prefix, path].filter((part) => part !== "").join("/");
		const prefix = full === "" ? "" : `${full}/`;
		const shownAs = `${location}${path === "" ? "" : `/${path}`}/`;
		return listAllPages(prefix, shownAs, async (marker) => {
			const parameters: [string, string][] = [["restype", "container"], ["comp", "list"], ["delimiter", "/"], ["prefix", prefix]];
			if (marker !== undefined) parameters.push(["marker", marker]);
			const bytes = await store.getUrl(withQuery(containerUrl, parameters), { signal });
			if (bytes === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `listing ${shownAs}: container ${JSON.stringify(url.bucket)} not found (HTTP 404)`, { path: location });
			const xml = new TextDecoder().decode(bytes);
			if (!/<EnumerationResults[\s>]/.test(xml)) throw notAListing(shownAs, location, "an Azure Blob listing (EnumerationResults)", bytes);
			const next = xmlFirst(xml, "NextMarker");
			return {
				prefixes: xmlElements(xml, "BlobPrefix").map((block) => xmlFirst(block, "Name") ?? ""),
				keys: xmlElements(xml, "Blob").map((block) => xmlFirst(block, "Name") ?? ""),
				next: next === undefined || next === "" ? undefined : next,
			};
		});
	};
	return { kind: "az", store, list, location };
}
