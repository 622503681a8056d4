/**
 * `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`: the bucket and the key prefix as typed.
 * The prefix is taken literally (no percent-decoding), as the AWS CLI and gsutil do, `?` and `#` included for s3://
 * (legal key characters, and the AWS CLI's keys are verbatim; gsutil reads `?` as a wildcard, and an Azure URL's
 * query is its SAS token, so they are refused there). `.` and `..` segments are refused because a service would
 * resolve them differently from a folder, and so are empty ones (`a//b`, keys written by a tool that joins with a
 * leading `/`): read as one `/`, they named another prefix, which may exist.
 */
import { UsageError } from "../errors.js";
import { awsUriEncode } from "./sigv4.js";

export interface BucketUrl {
	readonly scheme: string;
	readonly bucket: string;
	/** The key prefix without leading or trailing `/`; "" for the bucket's root. */
	readonly prefix: string;
}

/** Whether `?` and `#` in the location are characters of its keys (s3://), not a query and a fragment. */
export function hasVerbatimKeys(location: string): boolean {
	return /^s3:\/\//i.test(location);
}

export function parseBucketUrl(location: string): BucketUrl {
	const verbatim = hasVerbatimKeys(location);
	const match = (verbatim ? /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(\/.*)?$/is : /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(\/[^?#]*)?$/i).exec(location);
	if (match === null) throw new UsageError(`invalid store URL ${JSON.stringify(location)}: expected <scheme>://<bucket>/<path>, without ? or #`);
	const [, scheme, bucket, rest] = match;
	if (bucket === "") throw new UsageError(`invalid store URL ${JSON.stringify(location)}: no bucket name`);
	// The `/` after the bucket, and one at the end, separate; any other empty segment is a key's.
	const afterBucket = (rest ?? "").replace(/^\//, "");
	const path = afterBucket === "/" ? afterBucket : afterBucket.replace(/\/$/, "");
	const segments = path === "" ? [] : path.split("/");
	if (segments.some((segment) => segment === "")) {
		throw new UsageError(`invalid store URL ${JSON.stringify(location)}: an empty path segment (//): keys with empty segments cannot be named, and reading them as one / would read another prefix`);
	}
	if (segments.some((segment) => segment === "." || segment === "..")) {
		throw new UsageError(`invalid store URL ${JSON.stringify(location)}: "." and ".." are not key segments`);
	}
	return { scheme: scheme.toLowerCase(), bucket, prefix: segments.join("/") };
}

/** `scheme://bucket/prefix` as messages show it. */
export function formatBucketUrl(url: BucketUrl): string {
	return `${url.scheme}://${url.bucket}${url.prefix === "" ? "" : `/${url.prefix}`}`;
}

/** The URL path of a key prefix below `base` (a bucket's root URL), each segment encoded. */
export function joinKeyPath(base: URL, prefix: string, encode: (segment: string) => string): URL {
	const url = new URL(base.href);
	const segments = prefix === "" ? [] : prefix.split("/").map(encode);
	url.pathname = [url.pathname.replace(/\/+$/, ""), ...segments].join("/") || "/";
	return url;
}

/**
 * `url` with these query parameters added, each name and value encoded strictly (RFC 3986 unreserved characters
 * only): URLSearchParams would write a space as `+`, which a signature's canonical query does not mean.
 */
export function withQuery(url: URL, parameters: readonly (readonly [string, string])[]): URL {
	const result = new URL(url.href);
	const added = parameters.map(([name, value]) => `${awsUriEncode(name)}=${awsUriEncode(value)}`);
	const existing = result.search.replace(/^\?/, "");
	result.search = [existing, ...added].filter((part) => part !== "").join("&");
	return result;
}
