/**
 * When a request to an HTTP store or bucket is tried again, and after how long: the statuses that are retried (and
 * those that mean the service is throttling), Retry-After, the network failures another attempt cannot mend, and the
 * backoff between attempts. HttpStore (http-store.ts) runs the attempts; the S3, GCS and Azure stores reach this
 * through it.
 */
import { proxyOfFailure } from "./proxy-fetch.js";

const MAX_BACKOFF_MS = 5000;
/**
 * A throttled request backs off from 5 times the base, up to 20 s, as the AWS SDKs' standard retry mode does (1 s,
 * 2 s... 20 s): a throttle that lasts longer than the short backoff for server trouble failed an export within a
 * second or two. Half of each delay at least, so that the requests throttled together do not all come back at once.
 */
const THROTTLED_BACKOFF_FACTOR = 5;
const MAX_THROTTLED_BACKOFF_MS = 20_000;

/**
 * The wait before attempt `attempt + 1` (after `attempt` failed): exponential from `backoffMs` with jitter, capped,
 * from 5 times the base and never under half the ceiling for a throttled request, and at least the server's
 * Retry-After (up to the cap).
 */
export function retryDelayMs(attempt: number, backoffMs: number, throttled: boolean, retryAfter: number | undefined): number {
	const [base, most] = throttled ? [backoffMs * THROTTLED_BACKOFF_FACTOR, MAX_THROTTLED_BACKOFF_MS] : [backoffMs, MAX_BACKOFF_MS];
	const ceiling = Math.min(most, base * 2 ** (attempt - 1));
	const jittered = throttled ? ceiling / 2 + (Math.random() * ceiling) / 2 : Math.random() * ceiling;
	return Math.round(Math.max(jittered, Math.min(retryAfter ?? 0, most)));
}

/**
 * The longest wait between attempts, when the server's Retry-After asks for more (a throttle lifted in an hour, a
 * maintenance window): no attempt the tool makes can then succeed, and the error says so rather than advise more
 * retries (trial 26: 05). Undefined when Retry-After is within the cap, or absent.
 */
export function retryAfterPastCapMs(throttled: boolean, retryAfter: number | undefined): number | undefined {
	const most = throttled ? MAX_THROTTLED_BACKOFF_MS : MAX_BACKOFF_MS;
	return retryAfter !== undefined && retryAfter > most ? most : undefined;
}

/** The service asks for fewer requests: 429 Too Many Requests, 503 (S3's SlowDown, Azure's ServerBusy, GCS). */
export function isThrottlingStatus(status: number): boolean {
	return status === 429 || status === 503;
}

/** Worth another attempt: 408 Request Timeout, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
	return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/** Retry-After as milliseconds (delta-seconds or an HTTP date), when the server sent a usable one. */
export function retryAfterMs(response: Response): number | undefined {
	const value = response.headers.get("retry-after");
	if (value === null) return undefined;
	const seconds = Number(value);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const NETWORK_ERROR_CODES: Record<string, string> = {
	ECONNRESET: "connection reset",
	ECONNREFUSED: "connection refused",
	EPIPE: "connection closed while sending",
	ETIMEDOUT: "connection timed out",
	ENOTFOUND: "host not found",
	EAI_AGAIN: "DNS lookup failed",
	UND_ERR_SOCKET: "connection closed by the server",
	UND_ERR_CONNECT_TIMEOUT: "connect timed out",
	UND_ERR_HEADERS_TIMEOUT: "timed out waiting for response headers",
	UND_ERR_BODY_TIMEOUT: "timed out reading the body",
};

/**
 * Network failures that another attempt cannot mend: a host name that does not resolve (ENOTFOUND is DNS's
 * definite "no such name"; EAI_AGAIN, a lookup that could not be made, is retried), and a port fetch refuses to
 * connect to. What the user can do about each.
 */
const PERMANENT_NETWORK_ERRORS: Readonly<Record<string, (url: URL) => string>> = {
	ENOTFOUND: (url) => `host ${url.hostname} not found (ENOTFOUND): check the URL or endpoint, and this machine's DNS`,
	// The Fetch standard's "bad port" list (SIP's 5060, IRC's 6667, SMTP's 25...): Node's fetch never connects there.
	"bad port": (url) => `Node's fetch refuses to connect to port ${url.port} (a port the Fetch standard blocks): serve the endpoint on another port`,
	// A request undici refuses to send (a header it will not write): the same on every attempt.
	UND_ERR_INVALID_ARG: () => "the request could not be sent (UND_ERR_INVALID_ARG): check the headers given",
};

/**
 * The permanent network failure in fetch's cause chain, described; undefined for one worth retrying. Through a proxy
 * the failure is the proxy's (its host not found: the server's name is resolved by the proxy), and it is named.
 */
export function permanentNetworkError(error: unknown, url: URL): string | undefined {
	const proxy = proxyOfFailure(error);
	for (let current: unknown = error; current instanceof Error; current = current.cause) {
		const code = (current as { code?: unknown }).code;
		const describe = PERMANENT_NETWORK_ERRORS[typeof code === "string" ? code : current.message];
		if (describe !== undefined) return proxy === undefined ? describe(url) : `the proxy ${proxy.shown} (${proxy.variable}): ${describe(new URL(proxy.uri))}`;
	}
	return undefined;
}

/** fetch reports network failures as `TypeError: fetch failed` with the useful part in the cause chain. */
export function describeNetworkError(error: unknown): string {
	const proxy = proxyOfFailure(error);
	const through = proxy === undefined ? "" : ` through the proxy ${proxy.shown} (${proxy.variable})`;
	return `${describeCause(error)}${through}`;
}

function describeCause(error: unknown): string {
	let deepest: unknown = error;
	for (let current: unknown = error; current instanceof Error; current = current.cause) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string") {
			const meaning = NETWORK_ERROR_CODES[code];
			return meaning === undefined ? `${current.message} (${code})` : `${meaning} (${code})`;
		}
		deepest = current;
	}
	return deepest instanceof Error ? deepest.message : String(deepest);
}
