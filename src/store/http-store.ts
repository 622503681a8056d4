/**
 * A read-only zarrita store over http(s), for web servers and public S3/GCS buckets. zarrita's FetchStore gives
 * up on the first failed request; a long export over the network meets throttling, 5xx and dropped connections,
 * so every request here is retried with bounded exponential backoff before it fails with one line naming the URL.
 */
import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "./readable.js";
import { Dt64ExportError, UsageError, type ErrorFields } from "../errors.js";
import { onAbort } from "../abort.js";
import { RefusedKeyError } from "./refused-key.js";
import { RequestThrottle, type ThrottleOutcome } from "./request-throttle.js";
import { awsUriEncode } from "./sigv4.js";
import { checkByteCount, objectSize, rangeHeader, RangeMismatch, selectBytes, type ByteRequest } from "./byte-ranges.js";
import { headersOfRequest, requestHeaders } from "./request-headers.js";
import { describeNetworkError, isRetryableStatus, isThrottlingStatus, permanentNetworkError, retryAfterMs, retryAfterPastCapMs, retryDelayMs } from "./retry-policy.js";

export interface RetryInfo {
	key: string;
	/** The attempt that failed, 1 for the first request. */
	attempt: number;
	reason: string;
	delayMs: number;
}

export interface HttpStoreOptions {
	/** Sent with every request (auth tokens, API keys). Their values never appear in errors or `onRetry`. */
	headers?: Record<string, string>;
	/** Retries after the first attempt for 408, 429, 5xx, connection failures, timeouts and truncated bodies. */
	retries?: number;
	/**
	 * How long an attempt may wait on the server without receiving anything: for the response after sending the
	 * request, then for each next piece of the body. Default 30 000 (DuckDB's `http_timeout`); 0 waits without a
	 * limit (the caller's `signal` still ends it). A slow link that keeps sending is never cut off (a 1 GiB zip from a
	 * server without ranges may take many minutes); a server that stops sending is.
	 */
	timeoutMs?: number;
	/**
	 * Base of the exponential backoff; each delay is drawn uniformly below min(base * 2^n, 5000 ms). A throttled
	 * request (429, 503) waits longer: between half and all of min(5 * base * 2^n, 20 000 ms).
	 */
	backoffMs?: number;
	fetch?: typeof fetch;
	onRetry?: (info: RetryInfo) => void;
	/** Authenticates each attempt (an object store's signature or token); see RequestAuthorizer. */
	authorizer?: RequestAuthorizer;
	/**
	 * Which redirects are followed (a store with an `authorizer` follows none): `"follow"` (default) any http(s) one,
	 * `"same-origin"` only to the store URL's scheme, host and port, `"none"` none. The store's server chooses where
	 * a redirect points (a loopback or link-local address, an internal service): a service reading URLs given by
	 * others sets `"same-origin"` or `"none"`. `headers` (and credentials in the URL) go to the store's origin only,
	 * whatever this says: a request redirected elsewhere is sent without them, as curl does.
	 */
	redirects?: RedirectPolicy;
}

/** HttpStoreOptions.redirects. */
export type RedirectPolicy = "follow" | "same-origin" | "none";
export const REDIRECT_POLICIES: readonly RedirectPolicy[] = ["follow", "same-origin", "none"];

/**
 * What an object store adds to each request: its credentials, and the words for a refusal. `authorize` runs once
 * per attempt, after the store's own headers (Range included) are set: a signature covers them and its time.
 */
export interface RequestAuthorizer {
	authorize(method: string, url: URL, headers: Headers): void | Promise<void>;
	/**
	 * A failure the server gave as a final answer (401, 403, other 4xx), explained: `detail` is appended to the
	 * status line (what was refused, with which credentials; never a secret), `accessDenied` says whether the
	 * credentials were refused (S3 answers an expired token with 400). `body` is the start of the error document.
	 */
	explainFailure(response: Response, body: string, url: URL): RefusalExplanation;
	/**
	 * A 404 whose error document says that the bucket (container) itself does not exist, as a one-line message for
	 * STORE_NOT_FOUND; undefined for a missing key, which is what a 404 usually is (a chunk never written).
	 */
	explainNotFound?(response: Response, body: string, url: URL): { readonly message: string; readonly path: string } | undefined;
	/**
	 * Credentials that may be renewed where they were found (temporary credentials in an AWS profile, rewritten by
	 * whatever refreshes them): which credentials sign the requests now, counted up at each renewal.
	 */
	readonly credentialsVersion?: number;
	/**
	 * After a refusal of expired credentials (`RefusalExplanation.expired`) of a request signed with `version`: reads
	 * them again, and tells whether other credentials than those now sign requests (the refused request is sent once more).
	 */
	renewCredentials?(version: number): Promise<boolean>;
}

export interface RefusalExplanation {
	readonly detail: string;
	readonly accessDenied: boolean;
	/** The refusal is also what the service answers for a key that does not exist (see RefusedKeyError). */
	readonly mayBeMissing?: boolean;
	/** The error's fields: the bucket as `path`, `option: "signRequests"` when the request went unsigned by choice. */
	readonly fields?: ErrorFields;
	/** The credentials have expired (S3's ExpiredToken): renewed ones may be found (RequestAuthorizer.renewCredentials). */
	readonly expired?: boolean;
}

interface NormalizedHttpStoreOptions {
	headers: Headers;
	retries: number;
	timeoutMs: number;
	backoffMs: number;
	fetch: typeof fetch;
	onRetry: ((info: RetryInfo) => void) | undefined;
	authorizer: RequestAuthorizer | undefined;
	redirects: RedirectPolicy;
}

/** Redirects followed for one request before it fails, as fetch (and the Fetch standard) allows. */
export const MAX_REDIRECTS = 20;
/**
 * The largest metadata document (zarr.json, .zarray, .zattrs, .zgroup, .zmetadata) read over HTTP: it is JSON parsed
 * whole, and the largest real consolidated metadata is tens of MiB. A larger answer is refused as soon as its
 * Content-Length, or its body so far, passes this, never held whole.
 */
export const MAX_METADATA_ANSWER_BYTES = 256 * 2 ** 20;
/**
 * The largest other answer (a chunk, a shard's range, a listing page): a chunk decodes to at most 1 GiB (larger ones
 * are refused), and no codec grows incompressible data by more than a fraction of a percent; 16 MiB over that.
 */
const MAX_ANSWER_BYTES = 2 ** 30 + 16 * 2 ** 20;
const METADATA_DOCUMENTS = new Set(["zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"]);

/** The URL as it may be shown: no credentials, no fragment, and the query (often a token) replaced by `?…`. */
export function redactUrl(url: string | URL): string {
	const shown = new URL(url);
	const hasQuery = shown.search !== "";
	shown.username = "";
	shown.password = "";
	shown.search = "";
	shown.hash = "";
	return hasQuery ? `${shown.href}?…` : shown.href;
}

/** Hides the query string wherever a message from below (fetch, undici) repeats the URL. */
function redactQuery(text: string, url: URL): string {
	return url.search === "" ? text : text.split(url.search).join("?…");
}

/** Retries of a failed request, after the first attempt. */
export const DEFAULT_RETRIES = 3;
/** The longest wait for the next bytes of an answer (HttpStoreOptions.timeoutMs). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Checks the request options (`retries`, `timeoutMs`, `headers`...) whatever the store, so that a local export refuses what a remote one would. */
export function checkHttpStoreOptions(options: HttpStoreOptions): void {
	// Builds no Headers unless there are some: Node loads its whole fetch implementation on the first use of Headers
	// or fetch (3 MiB of peak memory on a local export, which never needs it).
	requestNumbers(options);
	redirectPolicy(options.redirects);
	if (options.headers !== undefined && Object.keys(options.headers).length > 0) requestHeaders(options.headers);
}

/** The retries, timeout and backoff of a store's requests, checked. */
function requestNumbers(options: HttpStoreOptions): { retries: number; timeoutMs: number; backoffMs: number } {
	const retries = options.retries ?? DEFAULT_RETRIES;
	if (!Number.isInteger(retries) || retries < 0) {
		throw new UsageError(`invalid retries ${JSON.stringify(retries)}: expected a whole number >= 0`, { option: "retries" });
	}
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
		throw new UsageError(`invalid timeoutMs ${String(timeoutMs)}: expected a number of milliseconds >= 0 (0: no limit)`, { option: "timeoutMs" });
	}
	const backoffMs = options.backoffMs ?? 200;
	if (!Number.isFinite(backoffMs) || backoffMs < 0) {
		throw new UsageError(`invalid backoff ${JSON.stringify(backoffMs)}: expected a number of milliseconds >= 0`, { option: "backoffMs" });
	}
	return { retries, timeoutMs, backoffMs };
}

function normalizeOptions(options: HttpStoreOptions, userinfo: string | undefined): NormalizedHttpStoreOptions {
	const { retries, timeoutMs, backoffMs } = requestNumbers(options);
	const headers = requestHeaders(options.headers ?? {});
	// fetch refuses URLs with credentials (and its error would print them); send them the way a browser would.
	if (userinfo !== undefined && !headers.has("authorization")) {
		headers.set("Authorization", `Basic ${Buffer.from(userinfo).toString("base64")}`);
	}
	return { headers, retries, timeoutMs, backoffMs, fetch: options.fetch ?? fetch, onRetry: options.onRetry, authorizer: options.authorizer, redirects: redirectPolicy(options.redirects) };
}

function redirectPolicy(given: RedirectPolicy | undefined): RedirectPolicy {
	if (given === undefined) return "follow";
	if (!REDIRECT_POLICIES.includes(given)) {
		throw new UsageError(`invalid redirects ${JSON.stringify(given)}: expected ${REDIRECT_POLICIES.map((policy) => `"${policy}"`).join(", ")}`, { option: "redirects" });
	}
	return given;
}

/** A Retry-After wait as people read it: seconds, or minutes and hours past an hour's worth of them. */
function waitText(ms: number): string {
	const seconds = Math.round(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	if (seconds < 7200) return `${Math.round(seconds / 60)} minutes`;
	return `${Math.round(seconds / 3600)} hours`;
}

/** A failure worth another attempt (throttling, server trouble, network) as opposed to a final answer. */
class TransientFailure extends Error {
	constructor(
		message: string,
		readonly retryAfterMs?: number,
		options?: { cause?: unknown },
		/** The service asked for fewer requests (429, 503): a longer backoff, and fewer in flight (RequestThrottle). */
		readonly throttled = false,
	) {
		super(message, options);
	}
}

/** A final answer from the server that is not the data asked for; retrying would get the same. */
class FinalFailure extends Error {}

/** A 401 or 403: the credentials (or their absence) were refused; `mayBeMissing`: or the key does not exist. */
class AccessRefused extends FinalFailure {
	/** Which credentials signed the refused request (RequestAuthorizer.credentialsVersion). */
	credentialsVersion: number | undefined;

	constructor(
		message: string,
		readonly fields: ErrorFields = {},
		readonly mayBeMissing = false,
		readonly expired = false,
	) {
		super(message);
	}
}

/** A 404 that says the bucket (container) does not exist: no key of the store can be read. */
class StoreMissing extends FinalFailure {
	constructor(
		message: string,
		readonly path: string,
	) {
		super(message);
	}
}

/** A 416 to a suffix request, which `getRange` answers with a full GET. */
class RangeNotSatisfiable extends Error {}

/**
 * A range answered with the whole object (200: the server ignores Range) larger than the caller would hold: told as
 * soon as its Content-Length, or its body so far, passes the limit, not after downloading all of it.
 */
export class WholeObjectTooLarge extends Error {
	constructor(
		/** The object's size when the answer told it; otherwise the bytes that had arrived. */
		readonly bytes: number,
		readonly sizeKnown: boolean,
	) {
		super(`the server sent the whole object for a range: ${sizeKnown ? "" : "over "}${bytes} bytes`);
	}
}

/** An answer larger than any the store reads (MAX_METADATA_ANSWER_BYTES, MAX_ANSWER_BYTES): refused, never retried. */
class AnswerTooLarge extends Error {
	constructor(
		readonly bytes: number,
		sizeKnown: boolean,
		limit: AnswerLimit,
	) {
		super(`${sizeKnown ? `its Content-Length is ${bytes} bytes` : `over ${limit.bytes} bytes arrived`}: ${limit.why}`);
	}
}

/** The most bytes an answer may hold, and why, as a message says it. */
interface AnswerLimit {
	readonly bytes: number;
	readonly why: string;
}

/** The limit on the answer to `request` for the key at `url`'s path. */
function answerLimit(url: URL, request: ByteRequest): AnswerLimit {
	if (request.kind === "all" && request.maxBytes !== undefined && request.maxBytes < MAX_ANSWER_BYTES) {
		return { bytes: request.maxBytes, why: `more than the ${request.maxBytes} bytes its reader can use (a chunk's largest encoded size) is refused` };
	}
	if (METADATA_DOCUMENTS.has(decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf("/") + 1)))) {
		return { bytes: MAX_METADATA_ANSWER_BYTES, why: `a metadata document over ${MAX_METADATA_ANSWER_BYTES / 2 ** 20} MiB is refused (it is JSON read whole)` };
	}
	return { bytes: MAX_ANSWER_BYTES, why: `an answer over ${MAX_ANSWER_BYTES} bytes is refused (a chunk decodes to at most 1 GiB)` };
}

function statusLine(response: Response): string {
	// node:http is loaded for its status texts only when a response has none: a CLI run need not load it at start.
	const text = response.statusText || process.getBuiltinModule("node:http").STATUS_CODES[response.status] || "";
	return `HTTP ${response.status}${text === "" ? "" : ` ${text}`}`;
}

function abortError(signal: AbortSignal): unknown {
	return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * Waits for the backoff delay, or rejects as soon as the caller aborts. Through the caller signal's one listener
 * (onAbort in abort.ts), as attempts are: 32 chunks in flight may all wait to retry at once (a listener each made Node warn
 * past ten, MaxListenersExceededWarning on stderr).
 */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(abortError(signal));
			return;
		}
		const stopWaiting = signal === undefined ? undefined : onAbort(signal, () => {
			clearTimeout(timer);
			reject(abortError(signal));
		});
		const timer = setTimeout(() => {
			stopWaiting?.();
			resolve();
		}, ms);
	});
}

/**
 * One attempt's signal: aborted by the caller, or when the server sends nothing for `timeoutMs` (0: never). The wait restarts
 * with each piece of the body (`received`), so it measures a stalled server, never a slow link: a whole-attempt
 * deadline failed every large download on a slow link, and each retry began again from the first byte. Built by hand
 * rather than with AbortSignal.any/timeout so the timer and the listener on a long-lived caller signal are released
 * per attempt.
 */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number) {
	const controller = new AbortController();
	let timedOut = false;
	const stopWaiting = caller === undefined ? undefined : onAbort(caller, () => controller.abort(abortError(caller)));
	const timer =
		timeoutMs === 0
			? undefined
			: setTimeout(() => {
					timedOut = true;
					controller.abort(new DOMException(`nothing received for ${timeoutMs} ms`, "TimeoutError"));
				}, timeoutMs);
	return {
		signal: controller.signal,
		timedOut: () => timedOut,
		received: () => {
			timer?.refresh();
		},
		dispose() {
			clearTimeout(timer);
			stopWaiting?.();
		},
	};
}

/** A body read to its end, the attempt's wait for the server restarted by each piece that arrives. */
async function readBody(response: Response, received: () => void, progress: BodyProgress, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
	if (response.body === null) return new Uint8Array(0);
	const pieces: Uint8Array[] = [];
	// Counted as they arrive, after fetch undid any Content-Encoding: a compressed bomb is stopped at `limit`.
	for await (const piece of response.body) {
		received();
		pieces.push(piece);
		progress.bytes += piece.length;
		// Leaving the loop cancels the body.
		if (progress.bytes > limit) throw tooLarge();
	}
	// One buffer of its own: a piece may be a view into a larger one the network layer reuses.
	const bytes = new Uint8Array(progress.bytes);
	let offset = 0;
	for (const piece of pieces) {
		bytes.set(piece, offset);
		offset += piece.length;
	}
	return bytes;
}

interface BodyProgress {
	bytes: number;
}

/** What an attempt got: the bytes asked for, and the object's whole size when the response told it. */
interface Answer {
	readonly bytes: Uint8Array;
	readonly size: number | undefined;
	/** The whole object, when the server answered a range request with all of it (200: it ignores Range). */
	readonly whole?: Uint8Array;
}

/** A range read by HttpStore.readRange: the bytes, the object's size if told, and all of it if the server sent all. */
export type RangeAnswer = Answer;

export class HttpStore implements AsyncReadable {
	/** The base URL requests are made under, credentials removed; its query string may hold a token. */
	readonly url: string;
	readonly #base: URL;
	readonly #options: NormalizedHttpStoreOptions;
	readonly #throttle = new RequestThrottle();

	constructor(url: string | URL, options: HttpStoreOptions = {}) {
		let base: URL;
		try {
			base = new URL(url);
		} catch {
			// Not echoed: an unparsable URL cannot be redacted reliably.
			throw new UsageError("invalid store URL: expected an absolute http:// or https:// URL");
		}
		if (base.protocol !== "http:" && base.protocol !== "https:") {
			throw new UsageError(`unsupported store URL scheme ${JSON.stringify(base.protocol)}: expected http: or https:`);
		}
		const userinfo =
			base.username === "" && base.password === ""
				? undefined
				: `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
		base.username = "";
		base.password = "";
		base.hash = "";
		this.#base = base;
		this.url = base.href;
		this.#options = normalizeOptions(options, userinfo);
	}

	async get(key: AbsolutePath, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		return this.#read(this.#resolve(key), key, { kind: "all", maxBytes: options.maxBytes }, options.signal);
	}

	/**
	 * A whole document at a URL of the same service that is not a key of the store (an object store's listing),
	 * read with the store's headers, credentials and retries. Undefined for a 404.
	 */
	async getUrl(url: URL, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		return this.#read(url, url.pathname, { kind: "all" }, options.signal);
	}

	async getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		const url = this.#resolve(key);
		if ("suffixLength" in range) {
			checkByteCount(range.suffixLength, "suffix length", key);
			if (range.suffixLength === 0) return this.#emptyUnlessMissing(url, key, options.signal);
			try {
				return await this.#read(url, key, { kind: "suffix", length: range.suffixLength }, options.signal);
			} catch (error) {
				// Some servers answer 416 when the suffix is longer than the object instead of sending all of it.
				if (!(error instanceof RangeNotSatisfiable)) throw error;
				const whole = await this.#read(url, key, { kind: "all" }, options.signal);
				return whole?.subarray(Math.max(0, whole.length - range.suffixLength));
			}
		}
		if (range.length === 0) {
			checkByteCount(range.offset, "offset", key);
			return this.#emptyUnlessMissing(url, key, options.signal);
		}
		return (await this.readRange(key, range.offset, range.length, options))?.bytes;
	}

	/**
	 * `length` bytes of `key` from `offset` (at least one), with the object's size when the response told it and, when
	 * the server ignored the range and sent the whole object (200), all of it: a reader of many ranges of one object
	 * (a zip) can keep that instead of downloading it again for every range. Undefined when the object is missing.
	 */
	async readRange(key: AbsolutePath, offset: number, length: number, options: GetOptions & { maxWhole?: number } = {}): Promise<RangeAnswer | undefined> {
		checkByteCount(offset, "offset", key);
		checkByteCount(length, "length", key);
		if (length === 0) throw new Dt64ExportError("INTERNAL", `readRange of ${key}: a range of no bytes`, { key });
		return this.#answer(this.#resolve(key), key, { kind: "range", offset, length, maxWhole: options.maxWhole }, options.signal);
	}

	/**
	 * The size of an object in bytes, undefined when it is missing. A store that authorizes its requests asks with
	 * HEAD; others with a one-byte GET, because a presigned URL is signed for one method and some servers answer
	 * HEAD differently.
	 */
	async size(key: AbsolutePath, options: GetOptions = {}): Promise<number | undefined> {
		const url = this.#resolve(key);
		const request: ByteRequest = this.#options.authorizer === undefined ? { kind: "range", offset: 0, length: 1 } : { kind: "head" };
		const answer = await this.#answer(url, key, request, options.signal);
		if (answer === undefined) return undefined;
		if (answer.size === undefined) {
			throw new Dt64ExportError("READ_FAILED", `${describeRequest(url, request)}: the server did not send the object's size`, { path: redactUrl(this.#base), key: key.slice(1) });
		}
		return answer.size;
	}

	/** A zero-byte range cannot be expressed as a Range header; the store still has to tell missing from empty. */
	async #emptyUnlessMissing(url: URL, key: string, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
		const whole = await this.#read(url, key, { kind: "all" }, signal);
		return whole === undefined ? undefined : new Uint8Array(0);
	}

	#resolve(key: AbsolutePath): URL {
		if (!key.startsWith("/")) throw new UsageError(`invalid store key ${JSON.stringify(key)}: expected a leading "/"`);
		const segments = key.slice(1).split("/");
		// The URL parser would resolve these (even percent-encoded) and read outside the store.
		if (segments.some((segment) => segment === "." || segment === "..")) {
			throw new UsageError(`store key ${JSON.stringify(key)} escapes the store`);
		}
		const url = new URL(this.#base.href);
		// Encoded as strictly as a signature's canonical path, so that what is sent is what was signed.
		url.pathname = `${url.pathname.replace(/\/+$/, "")}/${segments.map(awsUriEncode).join("/")}`;
		return url;
	}

	/** `key` names the request in `onRetry`: the store key, or the URL's path for `getUrl`. */
	async #read(url: URL, key: string, request: ByteRequest, signal: AbortSignal | undefined): Promise<Uint8Array | undefined> {
		return (await this.#answer(url, key, request, signal))?.bytes;
	}

	async #answer(url: URL, key: string, request: ByteRequest, signal: AbortSignal | undefined): Promise<Answer | undefined> {
		const what = describeRequest(url, request);
		const { retries, backoffMs, onRetry, authorizer } = this.#options;
		let renewed = false;
		for (let attempt = 1; ; attempt++) {
			if (signal?.aborted) throw abortError(signal);
			try {
				return await this.#admittedAttempt(url, request, signal);
			} catch (error) {
				if (signal?.aborted) throw abortError(signal);
				if (error instanceof RangeNotSatisfiable || error instanceof WholeObjectTooLarge) throw error;
				const reason = redactQuery(error instanceof Error ? error.message : String(error), url).replace(/\s+/g, " ");
				if (error instanceof AccessRefused) {
					// Expired temporary credentials, renewed where they were found: the request once more, not counted as a retry.
					if (error.expired && !renewed && authorizer?.renewCredentials !== undefined && (await authorizer.renewCredentials(error.credentialsVersion ?? 0))) {
						renewed = true;
						attempt--;
						continue;
					}
					const fields = { path: redactUrl(url), ...error.fields, cause: error };
					if (error.mayBeMissing) throw new RefusedKeyError(`${what} failed: ${reason}`, { ...fields, key: key.replace(/^\//, "") });
					throw new Dt64ExportError("ACCESS_DENIED", `${what} failed: ${reason}`, fields);
				}
				if (error instanceof StoreMissing) throw new Dt64ExportError("STORE_NOT_FOUND", reason, { path: error.path, cause: error });
				if (error instanceof AnswerTooLarge) {
					throw new Dt64ExportError("TOO_LARGE", `${what}: ${reason}`, { path: redactUrl(this.#base), key: key.replace(/^\//, ""), value: error.bytes, cause: error });
				}
				if (!(error instanceof TransientFailure)) {
					throw new Dt64ExportError("READ_FAILED", `${what} failed: ${reason}`, { path: redactUrl(this.#base), key: key.replace(/^\//, ""), cause: error });
				}
				if (attempt > retries) {
					const attempts = `${attempt} attempt${attempt === 1 ? "" : "s"}`;
					const cap = retryAfterPastCapMs(error.throttled, error.retryAfterMs);
					const advice =
						cap !== undefined
							? `; the server asked to wait ${waitText(error.retryAfterMs!)} before trying again (Retry-After), longer than the ${cap / 1000} s waited between attempts: run the export once it takes requests again`
							: error.throttled
								? `; the service throttled the requests: fewer in flight (\`concurrency\`), or more \`retries\` (each waits longer), let it keep up`
								: "";
					throw new Dt64ExportError("READ_FAILED", `${what} failed after ${attempts}: ${reason}${advice}`, { path: redactUrl(this.#base), key: key.replace(/^\//, ""), cause: error });
				}
				const delayMs = retryDelayMs(attempt, backoffMs, error.throttled, error.retryAfterMs);
				onRetry?.({ key, attempt, reason, delayMs });
				await sleep(delayMs, signal);
			}
		}
	}

	/** One attempt, once the store's throttle lets one more request be in flight; its outcome narrows or widens that. */
	async #admittedAttempt(url: URL, request: ByteRequest, caller: AbortSignal | undefined): Promise<Answer | undefined> {
		const onCallerAbort = caller === undefined ? undefined : (abort: () => void) => onAbort(caller, abort);
		const ticket = await this.#throttle.admit(onCallerAbort, () => abortError(caller!));
		let outcome: ThrottleOutcome = "other";
		try {
			const answer = await this.#attempt(url, request, caller);
			outcome = "ok";
			return answer;
		} catch (error) {
			if (error instanceof TransientFailure && error.throttled) outcome = "throttled";
			throw error;
		} finally {
			this.#throttle.release(ticket, outcome);
		}
	}

	/**
	 * Sends a request and follows the redirects `redirects` allows, itself (fetch's own following sends every header
	 * but Authorization on to any host the server names): the user's headers go to the store's origin only; a
	 * redirect refused, to another scheme than http(s), or past MAX_REDIRECTS is a final failure, never retried.
	 */
	async #send(url: URL, method: string, headers: Headers, request: ByteRequest, signal: AbortSignal): Promise<Response> {
		const { redirects } = this.#options;
		let at = url;
		for (let followed = 0; ; followed++) {
			const sent = at.origin === this.#base.origin ? headers : headersOfRequest(request, undefined);
			const response = await this.#options.fetch(at, { method, headers: sent, signal, redirect: "manual" });
			const target = redirectTarget(response, at);
			if (target === undefined) return response;
			await response.body?.cancel();
			const line = `${statusLine(response)} to ${redactUrl(target)}, not followed`;
			if (target.protocol !== "http:" && target.protocol !== "https:") throw new FinalFailure(`${line}: only http(s) redirects are followed`);
			if (redirects === "none") throw new FinalFailure(`${line}: \`redirects\` is "none"`);
			if (redirects === "same-origin" && target.origin !== this.#base.origin) {
				throw new FinalFailure(`${line}: \`redirects\` is "same-origin" and it points to another origin than ${this.#base.origin}`);
			}
			if (followed === MAX_REDIRECTS) throw new FinalFailure(`${line}: more than ${MAX_REDIRECTS} redirects (a loop?)`);
			at = target;
		}
	}

	async #attempt(url: URL, request: ByteRequest, caller: AbortSignal | undefined): Promise<Answer | undefined> {
		const headers = headersOfRequest(request, this.#options.headers);
		const method = request.kind === "head" ? "HEAD" : "GET";
		const { authorizer } = this.#options;
		const attempt = attemptSignal(caller, this.#options.timeoutMs);
		let stage = "request";
		const body: BodyProgress = { bytes: 0 };
		const credentialsVersion = authorizer?.credentialsVersion;
		try {
			await authorizer?.authorize(method, url, headers);
			// A request with credentials is not followed elsewhere: a signature covers its host (the redirected request
			// fails as unsigned, since fetch drops Authorization across origins), and a token is not sent to another address.
			const response =
				authorizer === undefined
					? await this.#send(url, method, headers, request, attempt.signal)
					: await this.#options.fetch(url, { method, headers, signal: attempt.signal, redirect: "manual" });
			stage = "body";
			attempt.received();
			if (response.status === 404) {
				if (authorizer?.explainNotFound === undefined || method === "HEAD") {
					await response.body?.cancel();
					return undefined;
				}
				const missing = authorizer.explainNotFound(response, await errorBody(response), url);
				if (missing !== undefined) throw new StoreMissing(missing.message, missing.path);
				return undefined;
			}
			if (response.status === 416 && request.kind === "suffix") {
				await response.body?.cancel();
				throw new RangeNotSatisfiable();
			}
			if (response.status === 206 && (request.kind === "all" || request.kind === "head")) {
				// A part of the object to a request for all of it (a proxy's cached range, a server's bug): said as such,
				// not as a failed status (trial 26: 06).
				await response.body?.cancel();
				const range = response.headers.get("content-range");
				throw new FinalFailure(`HTTP 206 Partial Content${range === null ? "" : ` (Content-Range ${range})`} to a request for the whole object, which asked for no range`);
			}
			const expected = request.kind === "all" || request.kind === "head" ? response.status === 200 : response.status === 200 || response.status === 206;
			if (!expected) throw await statusFailure(response, authorizer, url);
			// Content-Length counts encoded bytes when the server compressed the response anyway.
			const encoded = (response.headers.get("content-encoding") ?? "identity").toLowerCase() !== "identity";
			if (request.kind === "head") {
				await response.body?.cancel();
				return { bytes: new Uint8Array(0), size: objectSize(response, encoded) };
			}
			const maxWhole = request.kind === "range" && response.status === 200 ? request.maxWhole : undefined;
			const limit = answerLimit(url, request);
			// The body's own length (a 206's Content-Length is the part's, its object's size is the Content-Range total).
			const bodyLength = encoded ? undefined : Number(response.headers.get("content-length") ?? Number.NaN);
			if (maxWhole !== undefined && bodyLength !== undefined && bodyLength > maxWhole) {
				await response.body?.cancel();
				throw new WholeObjectTooLarge(bodyLength, true);
			}
			if (bodyLength !== undefined && bodyLength > limit.bytes) {
				await response.body?.cancel();
				throw new AnswerTooLarge(bodyLength, true, limit);
			}
			const tooLarge = () => (maxWhole !== undefined && maxWhole < limit.bytes ? new WholeObjectTooLarge(maxWhole, false) : new AnswerTooLarge(limit.bytes, false, limit));
			const bytes = await readBody(response, attempt.received, body, Math.min(limit.bytes, maxWhole ?? limit.bytes), tooLarge);
			const declared = response.headers.get("content-length");
			if (declared !== null && !encoded && Number(declared) !== bytes.length) {
				throw new TransientFailure(`body truncated (${bytes.length} of ${declared} bytes)`);
			}
			const whole = request.kind === "range" && response.status === 200 ? bytes : undefined;
			return { bytes: selectBytes(bytes, response, request), size: objectSize(response, encoded), whole };
		} catch (error) {
			if (caller?.aborted) throw abortError(caller);
			if (attempt.timedOut()) {
				const { timeoutMs } = this.#options;
				const waited = stage === "request" ? `timed out: no response within ${timeoutMs} ms` : `timed out: no bytes for ${timeoutMs} ms (${body.bytes} bytes of the body read)`;
				throw new TransientFailure(waited, undefined, { cause: error });
			}
			if (error instanceof AccessRefused) error.credentialsVersion = credentialsVersion;
			if (error instanceof TransientFailure || error instanceof RangeNotSatisfiable || error instanceof WholeObjectTooLarge || error instanceof AnswerTooLarge || error instanceof FinalFailure || error instanceof RangeMismatch || error instanceof Dt64ExportError) {
				throw error;
			}
			const permanent = permanentNetworkError(error, url);
			if (permanent !== undefined) throw new FinalFailure(permanent, { cause: error });
			// Anything else fetch throws is the network: a reset, a refused connection, a body cut short.
			const prefix = stage === "body" ? "body truncated: " : "";
			throw new TransientFailure(`${prefix}${describeNetworkError(error)}`, undefined, { cause: error });
		} finally {
			attempt.dispose();
		}
	}
}

function describeRequest(url: URL, request: ByteRequest): string {
	const range = rangeHeader(request);
	return `${request.kind === "head" ? "HEAD" : "GET"} ${redactUrl(url)}${range === undefined ? "" : ` (${range})`}`;
}

/** The start of an error document: enough for its code and message, never a whole object read by mistake. */
async function errorBody(response: Response): Promise<string> {
	try {
		return (await response.text()).slice(0, 4096);
	} catch {
		return "";
	}
}

/** Where a redirect points, when the response is one with a Location. */
export function redirectTarget(response: Response, url: URL): URL | undefined {
	const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
	if (location === null) return undefined;
	try {
		return new URL(location, url);
	} catch {
		return undefined;
	}
}

async function statusFailure(response: Response, authorizer: RequestAuthorizer | undefined, url: URL): Promise<Error> {
	const target = authorizer === undefined ? undefined : redirectTarget(response, url);
	const line = `${statusLine(response)}${target === undefined ? "" : ` to ${redactUrl(target)}, not followed: a request with credentials is not sent on to another address`}`;
	if (isRetryableStatus(response.status)) {
		// An object store's error document names the throttling (S3's SlowDown) or the trouble; a web server's page is not read.
		let detail = "";
		if (authorizer === undefined) await response.body?.cancel();
		else detail = authorizer.explainFailure(response, await errorBody(response), url).detail;
		return new TransientFailure(`${line}${detail}`, retryAfterMs(response), undefined, isThrottlingStatus(response.status));
	}
	if (authorizer !== undefined) {
		const { detail, accessDenied, mayBeMissing, fields, expired } = authorizer.explainFailure(response, await errorBody(response), url);
		return accessDenied ? new AccessRefused(`${line}${detail}`, fields, mayBeMissing, expired) : new FinalFailure(`${line}${detail}`);
	}
	await response.body?.cancel();
	// Only 404 means "missing chunk". S3 answers 403 for a missing key when the caller may not list the bucket,
	// but 403 is just as much a wrong or expired token or a private object; reading it as the fill value would
	// export silently wrong data, so it is an error.
	if (response.status === 403) {
		return new AccessRefused(`${line} (access denied; S3 also answers 403 for a missing key when listing is not allowed)`);
	}
	if (response.status === 401) return new AccessRefused(`${line} (authentication required)`);
	return new FinalFailure(line);
}
