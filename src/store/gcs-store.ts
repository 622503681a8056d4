/**
 * `gs://bucket/prefix`: objects read through the XML API's path form (`<endpoint>/<bucket>/<key>`, what public
 * buckets serve anonymously), prefixes listed through the JSON API (`/storage/v1/b/<bucket>/o`). The endpoint is
 * storage.googleapis.com, or STORAGE_EMULATOR_HOST (as Google's client libraries honour it). A bearer token is
 * sent when one is found: GOOGLE_OAUTH_ACCESS_TOKEN, else the metadata server of a Google Cloud machine if it
 * answers within a short time; else requests are anonymous.
 */
import type { EnvOrigin } from "./env-origin.js";
import { onAbort, throwIfAborted } from "../abort.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { BucketStore } from "./bucket-store.js";
import { formatBucketUrl, joinKeyPath, withQuery, type BucketUrl } from "./bucket-url.js";
import { HttpStore, type HttpStoreOptions, type RefusalExplanation, type RequestAuthorizer } from "./http-store.js";
import { notAListing } from "./listing-errors.js";
import { listAllPages } from "./prefix-listing.js";
import { awsUriEncode } from "./sigv4.js";
import { xmlFirst } from "./xml-elements.js";

export interface GcsStoreOptions extends Pick<HttpStoreOptions, "headers" | "retries" | "timeoutMs" | "fetch"> {
	readonly signRequests: boolean;
	readonly env: NodeJS.ProcessEnv;
	/** Where `env` came from, for messages (default: the environment). */
	readonly envOrigin?: EnvOrigin;
	/** Cuts short the metadata server's answer for a token (OpenStoreOptions.signal). */
	readonly signal?: AbortSignal;
}

const PUBLIC_ENDPOINT = "https://storage.googleapis.com";
/** A metadata server answers in milliseconds; off Google Cloud nothing answers, and anonymous reads should not wait. */
const METADATA_TIMEOUT_MS = 500;

interface GcsToken {
	readonly token: string | undefined;
	/** No token because unsigned requests were asked for. */
	readonly unsigned?: boolean;
	/** Where it came from, as messages name it. */
	readonly source: string;
}

function emulatorEndpoint(value: string): URL {
	try {
		const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
		url.pathname = url.pathname.replace(/\/+$/, "");
		return url;
	} catch {
		throw new UsageError("STORAGE_EMULATOR_HOST: not a host[:port] or an http:// URL");
	}
}

/**
 * The default service account's token from the metadata server, or undefined when none answers in time; the
 * caller's abort is not an absence of token: it rejects (AbortError, as the export's own). The caller's signal is
 * followed through onAbort, its one listener: AbortSignal.any made each lookup's signal a dependant of the caller's,
 * one more per store opened under a service's long-lived signal, held until collected.
 */
async function metadataToken(host: string, fetchImpl: typeof fetch, signal: AbortSignal | undefined): Promise<string | undefined> {
	const lookup = new AbortController();
	const timer = setTimeout(() => lookup.abort(new DOMException(`no answer in ${METADATA_TIMEOUT_MS} ms`, "TimeoutError")), METADATA_TIMEOUT_MS);
	const stopFollowing = signal === undefined ? undefined : onAbort(signal, () => lookup.abort(signal.reason));
	try {
		const response = await fetchImpl(`http://${host}/computeMetadata/v1/instance/service-accounts/default/token`, {
			headers: { "Metadata-Flavor": "Google" },
			signal: lookup.signal,
		});
		// Anything else answering on that name is not a metadata server.
		if (response.status !== 200 || response.headers.get("metadata-flavor") !== "Google") {
			await response.body?.cancel();
			return undefined;
		}
		const body = (await response.json()) as { access_token?: unknown };
		return typeof body.access_token === "string" && body.access_token !== "" ? body.access_token : undefined;
	} catch {
		throwIfAborted(signal);
		return undefined;
	} finally {
		clearTimeout(timer);
		stopFollowing?.();
	}
}

async function findToken(options: GcsStoreOptions, emulated: boolean): Promise<GcsToken> {
	if (!options.signRequests) return { token: undefined, source: "no credentials (anonymous requests)", unsigned: true };
	const fromEnv = options.env.GOOGLE_OAUTH_ACCESS_TOKEN?.trim();
	if (fromEnv) return { token: fromEnv, source: options.envOrigin === "the env option" ? "GOOGLE_OAUTH_ACCESS_TOKEN in the env option" : "GOOGLE_OAUTH_ACCESS_TOKEN" };
	// An emulator needs no token: the metadata server is asked there only when GCE_METADATA_HOST names one. Nor is it
	// asked for the env option (a service's per-call settings) unless named there: its token is the machine's identity.
	const ambient = !emulated && options.envOrigin !== "the env option";
	const host = options.env.GCE_METADATA_HOST?.trim() || (ambient ? "metadata.google.internal" : undefined);
	const token = host === undefined ? undefined : await metadataToken(host, options.fetch ?? fetch, options.signal);
	return token === undefined ? { token: undefined, source: "no credentials (anonymous requests)" } : { token, source: "the metadata server's default service account" };
}

class GcsAuthorizer implements RequestAuthorizer {
	constructor(
		readonly bucket: string,
		readonly credentials: GcsToken,
	) {}

	authorize(_method: string, _url: URL, headers: Headers): void {
		if (this.credentials.token !== undefined) headers.set("Authorization", `Bearer ${this.credentials.token}`);
	}

	explainFailure(response: Response, body: string): RefusalExplanation {
		const code = xmlFirst(body, "Code") ?? jsonErrorReason(body);
		const detail = code === undefined ? "" : ` (${code})`;
		if (response.status !== 401 && response.status !== 403) return { detail, accessDenied: false };
		const { token, source, unsigned } = this.credentials;
		const how = token === undefined ? source : `a token from ${source}`;
		return { detail: `${detail}: bucket ${JSON.stringify(this.bucket)} refused a request with ${how}`, accessDenied: true, fields: { path: `gs://${this.bucket}`, ...(unsigned ? { option: "signRequests" } : {}) } };
	}

	// The XML API's objects answer NoSuchBucket (HTTP status and error codes for XML); its JSON listing says notFound for a missing key and bucket alike.
	explainNotFound(_response: Response, body: string, url: URL): { message: string; path: string } | undefined {
		if (xmlFirst(body, "Code") !== "NoSuchBucket") return undefined;
		const path = `gs://${this.bucket}`;
		return { message: `${path}: the bucket does not exist at ${url.origin} (NoSuchBucket)`, path };
	}
}

/** The reason of a JSON API error, `{"error": {"errors": [{"reason": "forbidden"}]}}`. */
function jsonErrorReason(body: string): string | undefined {
	try {
		const reason = (JSON.parse(body) as { error?: { errors?: { reason?: unknown }[] } }).error?.errors?.[0]?.reason;
		return typeof reason === "string" && /^\w+$/.test(reason) ? reason : undefined;
	} catch {
		return undefined;
	}
}

interface JsonListPage {
	prefixes?: unknown;
	items?: { name?: unknown }[];
	nextPageToken?: unknown;
}

/** A JSON API listing: `kind` says so; a service that leaves it out still sends one of its members. */
function isListPage(page: unknown): page is JsonListPage {
	if (typeof page !== "object" || page === null || Array.isArray(page)) return false;
	const { kind } = page as { kind?: unknown };
	return kind === "storage#objects" || (kind === undefined && ("items" in page || "prefixes" in page || "nextPageToken" in page));
}

const strings = (values: unknown[]) => values.filter((value): value is string => typeof value === "string");

export async function openGcsStore(url: BucketUrl, options: GcsStoreOptions): Promise<BucketStore> {
	const location = formatBucketUrl(url);
	if (!/^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$/.test(url.bucket)) {
		throw new UsageError(`${location}: ${JSON.stringify(url.bucket)} is not a valid bucket name`);
	}
	const emulator = options.env.STORAGE_EMULATOR_HOST?.trim();
	const endpoint = emulator ? emulatorEndpoint(emulator) : new URL(PUBLIC_ENDPOINT);
	const credentials = await findToken(options, Boolean(emulator));
	const store = new HttpStore(joinKeyPath(endpoint, [url.bucket, url.prefix].filter((part) => part !== "").join("/"), awsUriEncode), {
		headers: options.headers,
		retries: options.retries,
		timeoutMs: options.timeoutMs,
		fetch: options.fetch,
		authorizer: new GcsAuthorizer(url.bucket, credentials),
	});
	const objects = joinKeyPath(endpoint, `storage/v1/b/${url.bucket}/o`, awsUriEncode);
	const list = async (path: string, signal?: AbortSignal) => {
		const full = [url.prefix, path].filter((part) => part !== "").join("/");
		const prefix = full === "" ? "" : `${full}/`;
		const shownAs = `${location}${path === "" ? "" : `/${path}`}/`;
		return listAllPages(prefix, shownAs, async (token) => {
			const parameters: [string, string][] = [["delimiter", "/"], ["prefix", prefix]];
			if (token !== undefined) parameters.push(["pageToken", token]);
			const bytes = await store.getUrl(withQuery(objects, parameters), { signal });
			if (bytes === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `listing ${shownAs}: bucket ${JSON.stringify(url.bucket)} not found (HTTP 404)`, { path: location });
			let page: unknown;
			try {
				page = JSON.parse(new TextDecoder().decode(bytes));
			} catch {
				page = undefined;
			}
			if (!isListPage(page)) throw notAListing(shownAs, location, "a Cloud Storage listing (JSON of kind storage#objects)", bytes);
			return {
				prefixes: Array.isArray(page.prefixes) ? strings(page.prefixes) : [],
				keys: Array.isArray(page.items) ? strings(page.items.map((item) => item?.name)) : [],
				next: typeof page.nextPageToken === "string" && page.nextPageToken !== "" ? page.nextPageToken : undefined,
			};
		});
	};
	return { kind: "gs", store, list, location };
}
