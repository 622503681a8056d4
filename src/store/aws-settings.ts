/**
 * Where an s3:// store's credentials, region and endpoint come from: the AWS CLI's chain, as far as it is files
 * and environment variables. Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else
 * the profile (AWS_PROFILE, default `default`) in the shared credentials file, then in the config file. Region:
 * AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, else us-east-1. Endpoint, in the order of the AWS SDKs'
 * "service-specific endpoints": AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the `s3` `endpoint_url` of the `[services
 * name]` section the profile's `services` names, the profile's `endpoint_url`; none of them when
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS (or the profile's ignore_configured_endpoint_urls) is true. Programs that hand out credentials (role_arn, SSO,
 * credential_process, instance metadata) are not run: such a profile is refused with what to do instead.
 */
import type { EnvOrigin } from "./env-origin.js";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Dt64ExportError, UsageError } from "../errors.js";
import { parseIni, type IniSections } from "./ini-file.js";
import type { AwsCredentials } from "./sigv4.js";

export interface AwsSettings {
	/** Undefined: requests go unsigned (`--no-sign-request`). */
	readonly credentials: AwsCredentials | undefined;
	/** Where the credentials came from, as messages name it; never a secret. */
	readonly credentialSource: string;
	readonly region: string;
	/** An S3-compatible service's endpoint (MinIO, Ceph, R2...), requested path-style; undefined for AWS itself. */
	readonly endpoint: URL | undefined;
}

export interface AwsSettingsOptions {
	/** False reads public buckets without credentials, as the AWS CLI's `--no-sign-request`. */
	readonly signRequests: boolean;
	readonly env: NodeJS.ProcessEnv;
	/** Where `env` came from, for messages (default: the environment). */
	readonly envOrigin?: EnvOrigin;
}

/**
 * The variables that point at the AWS files. Given the `env` option (a service's per-call settings for a tenant), the
 * files are read only when it names one of these: the process's own files (the service's default profile) are its
 * identity, and a tenant's env that lacks keys (a record missing its secret, a misspelt name) must not fall through
 * to it.
 */
const FILE_VARIABLES = ["HOME", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_PROFILE", "AWS_DEFAULT_PROFILE"];

/** Keys of a profile that name a way of getting credentials this tool does not run. */
const UNSUPPORTED_SOURCES = ["credential_process", "role_arn", "sso_session", "sso_start_url", "web_identity_token_file"];

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

/** `file` with a leading `~` replaced by the home folder; left as it is when there is none (see readIni). */
function expandHome(file: string, home: string | undefined): string {
	return home !== undefined && (file === "~" || file.startsWith("~/")) ? path.join(home, file.slice(1)) : file;
}

/**
 * The home folder the AWS files are found under: HOME, else the account's (the password database's), whichever is
 * first an absolute path; undefined when none is. An empty HOME (`env HOME= ...`, a container or CI step that blanks
 * it) names no folder: joined with `.aws/credentials` it became a path relative to the working folder, whose
 * `.aws/` files (a checked-out repository's, a scratch folder others write to) were read for credentials and
 * endpoints (trial 25, finding 09). It counts as unset, as os.homedir() reads an unset HOME.
 */
function homeFolder(given: string | undefined): string | undefined {
	const candidates = [() => given, () => os.homedir(), () => os.userInfo().homedir];
	for (const candidate of candidates) {
		let folder: string | undefined;
		try {
			folder = nonEmpty(candidate());
		} catch {
			folder = undefined;
		}
		if (folder !== undefined && path.isAbsolute(folder)) return folder;
	}
	return undefined;
}

async function readIni(file: string): Promise<IniSections> {
	// `~/...` left unexpanded: there is no home folder to find it in (homeFolder), and no `~` folder is meant.
	if (file === "~" || file.startsWith("~/")) return new Map();
	let text: string;
	try {
		text = await fs.readFile(file, "utf8");
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return new Map();
		throw new Dt64ExportError("READ_FAILED", `cannot read the AWS file ${file}: ${(error as Error).message}`, { path: file, cause: error });
	}
	return parseIni(text);
}

function parseEndpoint(value: string, source: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new UsageError(`${source}: not an absolute http:// or https:// URL`);
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${source}: expected an http:// or https:// URL`);
	if (url.username !== "" || url.password !== "" || url.search !== "") {
		throw new UsageError(`${source}: an endpoint URL carries no credentials and no query (credentials come from AWS_ACCESS_KEY_ID or a profile)`);
	}
	url.pathname = url.pathname.replace(/\/+$/, "");
	return url;
}

/** A boolean setting (`true`/`false`, any case); undefined when unset. Anything else is refused, not read as false. */
function booleanSetting(value: string | undefined, source: string): boolean | undefined {
	const text = nonEmpty(value)?.toLowerCase();
	if (text === undefined) return undefined;
	if (text !== "true" && text !== "false") throw new UsageError(`${source}: expected true or false, got ${JSON.stringify(value)}`);
	return text === "true";
}

interface EndpointSources {
	readonly env: NodeJS.ProcessEnv;
	readonly profile: string;
	readonly inConfig: ReadonlyMap<string, string> | undefined;
	readonly configIni: IniSections;
	readonly configFile: string;
}

/** The S3 endpoint the AWS SDKs would use (see the module comment), undefined for AWS itself. */
function resolveEndpoint({ env, profile, inConfig, configIni, configFile }: EndpointSources): URL | undefined {
	const where = `profile ${JSON.stringify(profile)} in ${configFile}`;
	const ignore =
		booleanSetting(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS") ??
		booleanSetting(inConfig?.get("ignore_configured_endpoint_urls"), `ignore_configured_endpoint_urls of ${where}`);
	if (ignore === true) return undefined;
	for (const name of ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"]) {
		const value = nonEmpty(env[name]);
		if (value !== undefined) return parseEndpoint(value, name);
	}
	const services = nonEmpty(inConfig?.get("services"));
	if (services !== undefined) {
		const section = configIni.get(`services ${services}`);
		// A profile that names settings which are not there would send its requests to AWS itself: refused instead.
		if (section === undefined) throw new UsageError(`${where} names services ${JSON.stringify(services)}, but the file has no [services ${services}] section`);
		const serviceEndpoint = nonEmpty(section.get("s3.endpoint_url"));
		if (serviceEndpoint !== undefined) return parseEndpoint(serviceEndpoint, `s3 endpoint_url of [services ${services}] in ${configFile}`);
	}
	const profileEndpoint = nonEmpty(inConfig?.get("endpoint_url"));
	return profileEndpoint === undefined ? undefined : parseEndpoint(profileEndpoint, `endpoint_url of ${where}`);
}

/** Resolves the credentials, region and endpoint for s3:// stores. */
export async function resolveAwsSettings(options: AwsSettingsOptions): Promise<AwsSettings> {
	const { env } = options;
	const origin = options.envOrigin ?? "the environment";
	const home = homeFolder(env.HOME);
	const explicitProfile = nonEmpty(env.AWS_PROFILE) ?? nonEmpty(env.AWS_DEFAULT_PROFILE);
	const profile = explicitProfile ?? "default";
	const credentialsFile = expandHome(nonEmpty(env.AWS_SHARED_CREDENTIALS_FILE) ?? "~/.aws/credentials", home);
	const configFile = expandHome(nonEmpty(env.AWS_CONFIG_FILE) ?? "~/.aws/config", home);
	const readsFiles = origin !== "the env option" || FILE_VARIABLES.some((name) => nonEmpty(env[name]) !== undefined);
	const [credentialsIni, configIni] = readsFiles ? await Promise.all([readIni(credentialsFile), readIni(configFile)]) : [new Map(), new Map()];
	const inCredentials = credentialsIni.get(profile);
	const inConfig = configIni.get(`profile ${profile}`) ?? (profile === "default" ? configIni.get("default") : undefined);

	const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? nonEmpty(inConfig?.get("region")) ?? "us-east-1";
	if (!/^[a-z0-9-]+$/.test(region)) throw new UsageError(`invalid AWS region ${JSON.stringify(region)}`);
	const endpoint = resolveEndpoint({ env, profile, inConfig, configIni, configFile });
	const settings = { region, endpoint };

	if (!options.signRequests) return { ...settings, credentials: undefined, credentialSource: "no credentials (unsigned requests)" };

	const keyId = nonEmpty(env.AWS_ACCESS_KEY_ID);
	const secret = nonEmpty(env.AWS_SECRET_ACCESS_KEY);
	if (keyId !== undefined || secret !== undefined) {
		if (keyId === undefined || secret === undefined) {
			const [set, unset] = keyId === undefined ? ["AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"] : ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"];
			throw new Dt64ExportError("CREDENTIALS_MISSING", `${set} is set but ${unset} is not: set both, or neither to use a profile`);
		}
		const sessionToken = nonEmpty(env.AWS_SESSION_TOKEN);
		const source = `${origin} (AWS_ACCESS_KEY_ID${sessionToken === undefined ? "" : " with AWS_SESSION_TOKEN"})`;
		return { ...settings, credentials: { accessKeyId: keyId, secretAccessKey: secret, ...(sessionToken === undefined ? {} : { sessionToken }) }, credentialSource: source };
	}

	for (const [section, file] of [
		[inCredentials, credentialsFile],
		[inConfig, configFile],
	] as const) {
		const accessKeyId = nonEmpty(section?.get("aws_access_key_id"));
		const secretAccessKey = nonEmpty(section?.get("aws_secret_access_key"));
		if (accessKeyId === undefined && secretAccessKey === undefined) continue;
		const where = `profile ${JSON.stringify(profile)} in ${file}`;
		if (accessKeyId === undefined || secretAccessKey === undefined) {
			throw new Dt64ExportError("CREDENTIALS_MISSING", `${where} has ${accessKeyId === undefined ? "aws_secret_access_key but no aws_access_key_id" : "aws_access_key_id but no aws_secret_access_key"}`);
		}
		const sessionToken = nonEmpty(section?.get("aws_session_token"));
		return { ...settings, credentials: { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }, credentialSource: where };
	}

	const unsupported = UNSUPPORTED_SOURCES.find((key) => inConfig?.has(key) || inCredentials?.has(key));
	if (unsupported !== undefined) {
		throw new Dt64ExportError(
			"CREDENTIALS_MISSING",
			`AWS profile ${JSON.stringify(profile)} gets its credentials through ${unsupported}, which dt64-export does not run: put them in the environment first (aws configure export-credentials --profile ${profile} --format env)`,
		);
	}
	if (explicitProfile !== undefined) {
		const found = inCredentials !== undefined || inConfig !== undefined;
		throw new Dt64ExportError(
			"CREDENTIALS_MISSING",
			found
				? `AWS profile ${JSON.stringify(profile)} has no aws_access_key_id in ${credentialsFile} or ${configFile}`
				: `AWS profile ${JSON.stringify(profile)} not found in ${credentialsFile} or ${configFile}`,
		);
	}
	if (!readsFiles) {
		throw new Dt64ExportError(
			"CREDENTIALS_MISSING",
			`no AWS credentials found in the env option, which names no AWS files (HOME, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE or AWS_PROFILE), so this process's own are not read: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in it, or name the files; a public bucket needs none when requests are sent unsigned`,
			{ option: "signRequests" },
		);
	}
	throw new Dt64ExportError(
		"CREDENTIALS_MISSING",
		`no AWS credentials found in ${origin} or the AWS files: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (~/.aws/credentials); a public bucket needs none when requests are sent unsigned`,
		{ option: "signRequests" },
	);
}
