/**
 * AWS Signature Version 4 for S3 requests without a body (GET, HEAD), written from the AWS documentation
 * ("Authenticating Requests: Using the Authorization Header") on node:crypto. A signature covers the request's
 * time, so the HTTP store signs every attempt again (a retry after a backoff is a new request).
 */
/** node:crypto, loaded on the first signature: a CLI run that signs nothing does not load it (about 5 ms). */
const crypto = () => process.getBuiltinModule("node:crypto");

export interface AwsCredentials {
	readonly accessKeyId: string;
	readonly secretAccessKey: string;
	readonly sessionToken?: string;
}

/** SHA-256 of no bytes: the payload hash of a request without a body. */
const EMPTY_PAYLOAD_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** SigV4's URI encoding: every byte but the unreserved characters `A-Za-z0-9-._~` as %XY, hex in upper case. */
export function awsUriEncode(text: string): string {
	return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `20130524T000000Z`, the form of x-amz-date. */
export function amzDate(date: Date): string {
	return date.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** The path as S3 canonicalizes it: each segment encoded once, whatever encoding the URL carried. */
function canonicalUri(url: URL): string {
	return url.pathname
		.split("/")
		.map((segment) => awsUriEncode(decodeURIComponent(segment)))
		.join("/");
}

function canonicalQuery(url: URL): string {
	const pairs = [...url.searchParams].map(([name, value]) => [awsUriEncode(name), awsUriEncode(value)]);
	pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
	return pairs.map(([name, value]) => `${name}=${value}`).join("&");
}

/** The headers signed: Host, Range and every x-amz-* header (S3 requires those signed). */
function signedHeaderNames(headers: Headers): string[] {
	const names = ["host"];
	for (const [name] of headers) {
		if (name === "range" || name.startsWith("x-amz-")) names.push(name);
	}
	return names.sort();
}

const hmac = (key: Buffer | string, text: string) => crypto().createHmac("sha256", key).update(text, "utf8").digest();
const sha256Hex = (text: string) => crypto().createHash("sha256").update(text, "utf8").digest("hex");

export interface SignOptions {
	readonly method: string;
	readonly url: URL;
	/** Changed in place: x-amz-date, x-amz-content-sha256, x-amz-security-token and Authorization are set. */
	readonly headers: Headers;
	readonly credentials: AwsCredentials;
	readonly region: string;
	readonly service?: string;
	readonly now?: Date;
}

/** Signs a request without a body by setting its headers. */
export function signRequest(options: SignOptions): void {
	const { method, url, headers, credentials, region } = options;
	const service = options.service ?? "s3";
	const timestamp = amzDate(options.now ?? new Date());
	const day = timestamp.slice(0, 8);
	headers.set("x-amz-date", timestamp);
	headers.set("x-amz-content-sha256", EMPTY_PAYLOAD_SHA256);
	if (credentials.sessionToken !== undefined) headers.set("x-amz-security-token", credentials.sessionToken);
	const names = signedHeaderNames(headers);
	const value = (name: string) => (name === "host" ? url.host : (headers.get(name) ?? "")).trim().replace(/\s+/g, " ");
	const canonicalRequest = [
		method,
		canonicalUri(url),
		canonicalQuery(url),
		...names.map((name) => `${name}:${value(name)}`),
		"",
		names.join(";"),
		EMPTY_PAYLOAD_SHA256,
	].join("\n");
	const scope = `${day}/${region}/${service}/aws4_request`;
	const stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, sha256Hex(canonicalRequest)].join("\n");
	const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service), "aws4_request");
	const signature = crypto().createHmac("sha256", signingKey).update(stringToSign, "utf8").digest("hex");
	headers.set(
		"authorization",
		`AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`,
	);
}
