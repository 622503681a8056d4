/**
 * Where an s3:// store's credentials, region and endpoint come from: the AWS CLI's chain, as far as it is files
 * and environment variables. Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else
 * the profile (AWS_PROFILE, default `default`) in the shared credentials file, then in the config file. Region:
 * AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, else us-east-1. Endpoint: AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL, the profile's `endpoint_url`. Programs that hand out credentials (role_arn, SSO,
 * credential_process, instance metadata) are not run: such a profile is refused with what to do instead.
 */
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
}

/** Keys of a profile that name a way of getting credentials this tool does not run. */
const UNSUPPORTED_SOURCES = ["credential_process", "role_arn", "sso_session", "sso_start_url", "web_identity_token_file"];

const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

function expandHome(file: string, home: string): string {
	return file === "~" || file.startsWith("~/") ? path.join(home, file.slice(1)) : file;
}

async function readIni(file: string): Promise<IniSections> {
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

/** Resolves the credentials, region and endpoint for s3:// stores. */
export async function resolveAwsSettings(options: AwsSettingsOptions): Promise<AwsSettings> {
	const { env } = options;
	const home = nonEmpty(env.HOME) ?? os.homedir();
	const explicitProfile = nonEmpty(env.AWS_PROFILE) ?? nonEmpty(env.AWS_DEFAULT_PROFILE);
	const profile = explicitProfile ?? "default";
	const credentialsFile = expandHome(nonEmpty(env.AWS_SHARED_CREDENTIALS_FILE) ?? path.join(home, ".aws", "credentials"), home);
	const configFile = expandHome(nonEmpty(env.AWS_CONFIG_FILE) ?? path.join(home, ".aws", "config"), home);
	const [credentialsIni, configIni] = await Promise.all([readIni(credentialsFile), readIni(configFile)]);
	const inCredentials = credentialsIni.get(profile);
	const inConfig = configIni.get(`profile ${profile}`) ?? (profile === "default" ? configIni.get("default") : undefined);

	const region = nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? nonEmpty(inConfig?.get("region")) ?? "us-east-1";
	if (!/^[a-z0-9-]+$/.test(region)) throw new UsageError(`invalid AWS region ${JSON.stringify(region)}`);
	const endpointVariable = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"].find((name) => nonEmpty(env[name]) !== undefined);
	const configEndpoint = nonEmpty(inConfig?.get("endpoint_url"));
	const endpoint =
		endpointVariable !== undefined
			? parseEndpoint(nonEmpty(env[endpointVariable])!, endpointVariable)
			: configEndpoint !== undefined
				? parseEndpoint(configEndpoint, `endpoint_url of profile ${JSON.stringify(profile)} in ${configFile}`)
				: undefined;
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
		const source = `the environment (AWS_ACCESS_KEY_ID${sessionToken === undefined ? "" : " with AWS_SESSION_TOKEN"})`;
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
	throw new Dt64ExportError(
		"CREDENTIALS_MISSING",
		"no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (~/.aws/credentials); a public bucket needs none when requests are sent unsigned",
		{ option: "signRequests" },
	);
}
