/**
 * `s3://bucket/prefix` over the one HTTP store: every request (GET with Range, HEAD, ListObjectsV2) signed with
 * Signature V4 per attempt, or unsigned for public buckets. AWS itself is addressed virtual-hosted
 * (`bucket.s3.<region>.amazonaws.com`, path-style for bucket names with dots, which TLS certificates do not
 * cover); an S3-compatible endpoint (AWS_ENDPOINT_URL) path-style, as MinIO, Ceph and R2 expect.
 */
import type { EnvOrigin } from "./env-origin.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import { resolveAwsSettings, type AwsSettings } from "./aws-settings.js";
import type { BucketStore } from "./bucket-store.js";
import { formatBucketUrl, joinKeyPath, withQuery, type BucketUrl } from "./bucket-url.js";
import { HttpStore, redirectTarget, type HttpStoreOptions, type RefusalExplanation, type RequestAuthorizer } from "./http-store.js";
import { notAListing } from "./listing-errors.js";
import { listAllPages, type ListingPage } from "./prefix-listing.js";
import { awsUriEncode, signRequest } from "./sigv4.js";
import { xmlElements, xmlFirst } from "./xml-elements.js";

export interface S3StoreOptions extends Pick<HttpStoreOptions, "headers" | "retries" | "timeoutMs" | "fetch"> {
	readonly signRequests: boolean;
	readonly env: NodeJS.ProcessEnv;
	/** Where `env` came from, for messages (default: the environment). */
	readonly envOrigin?: EnvOrigin;
}

/** What S3's error codes mean for the one who typed the command. */
const ERROR_MEANINGS: Readonly<Record<string, string>> = {
	SignatureDoesNotMatch: "the secret access key does not match the access key id",
	InvalidAccessKeyId: "the access key id is not known to the service",
	ExpiredToken: "the session token has expired",
	TokenRefreshRequired: "the session token has expired",
	InvalidToken: "the session token is not valid",
	RequestTimeTooSkewed: "this machine's clock differs from the service's by more than 15 minutes",
	AccessDenied: "access denied",
	AllAccessDisabled: "all access to the bucket is disabled",
	AuthorizationHeaderMalformed: "the request was signed for another region",
	PermanentRedirect: "the bucket is in another region",
	NoSuchBucket: "no such bucket",
	SlowDown: "reduce your request rate",
	ServiceUnavailable: "reduce your request rate",
};

/** S3's own words are kept up to this length: an error document's message is a sentence or two. */
const MAX_MESSAGE_CHARS = 300;

/**
 * S3's `<Message>`, when it says more than the code: AWS sends the same AccessDenied for a key that does not exist, a
 * bucket policy, a VPC endpoint policy and a KMS key the caller may not use, and only the message tells them apart
 * ("... not authorized to perform: kms:Decrypt ..."). On one line, cut short; undefined when it repeats the code or
 * the generic "Access Denied".
 */
function serviceMessage(body: string, code: string | undefined, meaning: string | undefined): string | undefined {
	const message = xmlFirst(body, "Message")?.replace(/\s+/g, " ").trim();
	if (message === undefined || message === "") return undefined;
	const bare = (text: string) => text.toLowerCase().replace(/[^a-z]/g, "");
	if ((code !== undefined && bare(message) === bare(code)) || bare(message) === "accessdenied") return undefined;
	if (meaning !== undefined && bare(message).includes(bare(meaning))) return undefined;
	return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}

/** A denial that names a KMS action is about an object that exists (its encryption key), never a missing key. */
const KMS_DENIAL = /\bkms:[A-Za-z]+/;

/** Codes S3 sends with 400 that are refused credentials all the same. */
const CREDENTIAL_CODES = new Set(["ExpiredToken", "TokenRefreshRequired", "InvalidToken"]);

const DNS_BUCKET = /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/;
const PATH_BUCKET = /^[A-Za-z0-9._-]{1,255}$/;

/** The URL of the bucket's root: the endpoint's, or AWS's own for the region. */
function bucketRoot(bucket: string, settings: AwsSettings): URL {
	if (settings.endpoint !== undefined) return joinKeyPath(settings.endpoint, bucket, awsUriEncode);
	const domain = settings.region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com";
	if (DNS_BUCKET.test(bucket)) return new URL(`https://${bucket}.s3.${settings.region}.${domain}/`);
	return joinKeyPath(new URL(`https://s3.${settings.region}.${domain}/`), bucket, awsUriEncode);
}

class S3Authorizer implements RequestAuthorizer {
	#settings: AwsSettings;
	#version = 0;
	/** The credentials read again after an ExpiredToken, shared by the requests refused meanwhile. */
	#renewing: Promise<boolean> | undefined;

	constructor(
		readonly bucket: string,
		settings: AwsSettings,
		/** How `settings` were resolved: to read the credentials again when they expire. */
		readonly resolve: () => Promise<AwsSettings>,
	) {
		this.#settings = settings;
	}

	get settings(): AwsSettings {
		return this.#settings;
	}

	get credentialsVersion(): number {
		return this.#version;
	}

	/**
	 * Temporary credentials (a session token) expire, and whatever refreshes them rewrites the AWS files (aws sso
	 * login, a credentials helper, a sidecar): read once per export, they failed every export longer than their
	 * lifetime. The environment is read again too, but a process's own cannot change under it.
	 */
	renewCredentials(version: number): Promise<boolean> {
		if (version !== this.#version) return Promise.resolve(true);
		this.#renewing ??= this.resolve()
			.then((renewed) => {
				const before = this.#settings.credentials;
				const after = renewed.credentials;
				if (after === undefined || (before !== undefined && after.accessKeyId === before.accessKeyId && after.secretAccessKey === before.secretAccessKey && after.sessionToken === before.sessionToken)) return false;
				this.#settings = { ...this.#settings, credentials: after, credentialSource: renewed.credentialSource };
				this.#version++;
				return true;
			})
			.catch(() => false)
			.finally(() => {
				this.#renewing = undefined;
			});
		return this.#renewing;
	}

	authorize(method: string, url: URL, headers: Headers): void {
		const { credentials, region } = this.settings;
		if (credentials !== undefined) signRequest({ method, url, headers, credentials, region });
	}

	explainFailure(response: Response, body: string, url: URL): RefusalExplanation {
		const code = xmlFirst(body, "Code");
		const meaning = code === undefined ? undefined : ERROR_MEANINGS[code];
		const message = serviceMessage(body, code, meaning);
		const said = message === undefined ? "" : `; S3 says: ${JSON.stringify(message)}`;
		const parts = [code === undefined ? (said === "" ? "" : ` (${said.slice(2)})`) : ` (${code}${meaning === undefined ? "" : `: ${meaning}`}${said})`];
		const { credentials, credentialSource, region } = this.settings;
		const accessDenied = response.status === 401 || response.status === 403 || (code !== undefined && CREDENTIAL_CODES.has(code));
		if (accessDenied) {
			const how = credentials === undefined ? "an unsigned request" : `a request signed with credentials from ${credentialSource}`;
			parts.push(`: bucket ${JSON.stringify(this.bucket)} refused ${how}`);
		}
		const bucketRegion = response.headers.get("x-amz-bucket-region") ?? xmlFirst(body, "Region");
		const target = redirectTarget(response, url);
		if (bucketRegion !== null && bucketRegion !== undefined && bucketRegion !== region && /^[a-z0-9-]+$/.test(bucketRegion)) {
			parts.push(`; the bucket is in region ${bucketRegion}, not ${region}: set AWS_REGION=${bucketRegion}`);
		} else if (target !== undefined) {
			// The SDKs re-sign only for S3's own region redirects; an endpoint that moved is the caller's to name.
			parts.push(`; a signature covers its host: if the endpoint moved there, set AWS_ENDPOINT_URL=${target.origin}`);
		}
		const fields = { path: `s3://${this.bucket}`, ...(credentials === undefined ? { option: "signRequests" } : {}) };
		// Only AccessDenied is S3's answer for a key that does not exist when listing is not allowed; a wrong signature
		// or an unknown key id is refused credentials whatever the key, and a KMS denial is of an object that exists.
		const mayBeMissing = response.status === 403 && code === "AccessDenied" && !KMS_DENIAL.test(message ?? "");
		return { detail: parts.join(""), accessDenied, mayBeMissing, fields, expired: code === "ExpiredToken" || code === "TokenRefreshRequired" };
	}

	explainNotFound(_response: Response, body: string, url: URL): { message: string; path: string } | undefined {
		if (xmlFirst(body, "Code") !== "NoSuchBucket") return undefined;
		const path = `s3://${this.bucket}`;
		return { message: `${path}: the bucket does not exist at ${url.origin} (NoSuchBucket)`, path };
	}
}

/** One page of ListObjectsV2 with delimiter `/`; undefined when the document is not one. */
function parseListPage(xml: string): ListingPage | undefined {
	if (!/<ListBucketResult[\s>]/.test(xml)) return undefined;
	const truncated = xmlFirst(xml, "IsTruncated") === "true";
	const next = xmlFirst(xml, "NextContinuationToken");
	return {
		prefixes: xmlElements(xml, "CommonPrefixes").map((block) => xmlFirst(block, "Prefix") ?? ""),
		keys: xmlElements(xml, "Contents").map((block) => xmlFirst(block, "Key") ?? ""),
		next: truncated ? next : undefined,
	};
}

export async function openS3Store(url: BucketUrl, options: S3StoreOptions): Promise<BucketStore> {
	const location = formatBucketUrl(url);
	const resolve = () => resolveAwsSettings({ signRequests: options.signRequests, env: options.env, envOrigin: options.envOrigin });
	const settings = await resolve();
	if (!(settings.endpoint === undefined ? DNS_BUCKET.test(url.bucket) || PATH_BUCKET.test(url.bucket) : PATH_BUCKET.test(url.bucket))) {
		throw new UsageError(`${location}: ${JSON.stringify(url.bucket)} is not a valid bucket name`);
	}
	const root = bucketRoot(url.bucket, settings);
	const store = new HttpStore(joinKeyPath(root, url.prefix, awsUriEncode), {
		headers: options.headers,
		retries: options.retries,
		timeoutMs: options.timeoutMs,
		fetch: options.fetch,
		authorizer: new S3Authorizer(url.bucket, settings, resolve),
	});
	const list = async (path: string, signal?: AbortSignal) => {
		const full = [url.prefix, path].filter((part) => part !== "").join("/");
		const prefix = full === "" ? "" : `${full}/`;
		const shownAs = `${location}${path === "" ? "" : `/${path}`}/`;
		return listAllPages(prefix, shownAs, async (token) => {
			const parameters: [string, string][] = [["list-type", "2"], ["delimiter", "/"], ["prefix", prefix]];
			if (token !== undefined) parameters.push(["continuation-token", token]);
			const query = withQuery(root, parameters);
			const bytes = await store.getUrl(query, { signal });
			if (bytes === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `listing ${shownAs}: bucket ${JSON.stringify(url.bucket)} not found (HTTP 404)`, { path: location });
			const listed = parseListPage(new TextDecoder().decode(bytes));
			if (listed === undefined) throw notAListing(shownAs, location, "an S3 listing (ListBucketResult)", bytes);
			return listed;
		});
	};
	return { kind: "s3", store, list, location };
}
