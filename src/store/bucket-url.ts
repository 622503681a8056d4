/**
 * `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`: the bucket and the key prefix as typed.
 * The prefix is taken literally (no percent-decoding), as the AWS CLI and gsutil do; `.` and `..` segments are
 * refused because a service would resolve them differently from a folder.
 */
import { UsageError } from "../errors.js";
import { awsUriEncode } from "./sigv4.js";

export interface BucketUrl {
	readonly scheme: string;
	readonly bucket: string;
	/** The key prefix without leading or trailing `/`; "" for the bucket's root. */
	readonly prefix: string;
}

export function parseBucketUrl(location: string): BucketUrl {
	const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(\/[^?#]*)?$/i.exec(location);
	if (match === null) throw new UsageError(`invalid store URL ${JSON.stringify(location)}: expected <scheme>://<bucket>/<path>, without ? or #`);
	const [, scheme, bucket, rest] = match;
	if (bucket === "") throw new UsageError(`invalid store URL ${JSON.stringify(location)}: no bucket name`);
	const segments = (rest ?? "").split("/").filter((segment) => segment !== "");
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
