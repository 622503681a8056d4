/**
 * Requests through the HTTP proxy the environment names, as curl, Python's requests (boto3, fsspec) and the AWS,
 * Google and Azure command lines read it: `http_proxy`/`HTTP_PROXY` for http:// URLs, `https_proxy`/`HTTPS_PROXY`
 * for https:// ones (the lower-case name first), hosts in `no_proxy`/`NO_PROXY` reached directly. A machine whose
 * only way out is such a proxy (a cloud VM in a private subnet) reads its buckets so; Node's fetch ignores them.
 *
 * Each proxied request is sent by undici's own fetch with a ProxyAgent given to that request (its `dispatcher`),
 * never as the process's global dispatcher: the host program's requests are not touched. undici is loaded only
 * when a proxy is named, and only after Node's own fetch has set up its global dispatcher (undici installs its
 * Agent there when none is set yet, which would put every later fetch of the process on it).
 */
import { UsageError } from "../errors.js";

/** The proxy a request goes through: its URL, how messages show it (no credentials), and the variable naming it. */
export interface ProxyRoute {
	readonly uri: string;
	readonly shown: string;
	readonly variable: string;
}

/** A fetch failure through a proxy: the failure is the cause, the proxy is named for the message (see proxyOfFailure). */
class ProxiedRequestFailure extends TypeError {
	constructor(
		readonly route: ProxyRoute,
		cause: unknown,
	) {
		super(`fetch failed through the proxy ${route.shown} (${route.variable})`, { cause });
	}
}

/** The proxy a fetch failure went through, when it did. */
export function proxyOfFailure(error: unknown): ProxyRoute | undefined {
	for (let current: unknown = error; current instanceof Error; current = current.cause) {
		if (current instanceof ProxiedRequestFailure) return current.route;
	}
	return undefined;
}

/** The variable set first among `names` in `env`, and its value; empty values are unset. */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): { variable: string; value: string } | undefined {
	for (const variable of names) {
		const value = env[variable]?.trim();
		if (value) return { variable, value };
	}
	return undefined;
}

/** A proxy variable's URL: `host:port` is an http:// proxy, as curl and requests read it; other schemes are refused. */
function proxyRoute(variable: string, value: string): ProxyRoute {
	const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
	let url: URL;
	try {
		url = new URL(withScheme);
	} catch {
		throw new UsageError(`${variable} is not a proxy URL (expected http://host:port)`, { value: variable });
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		throw new UsageError(`${variable} names a ${url.protocol.slice(0, -1)} proxy: only http:// and https:// proxies are supported`, { value: variable });
	}
	const shown = `${url.protocol}//${url.host}`;
	return { uri: url.href, shown, variable };
}

/** One `no_proxy` entry: a host or domain (a leading `.` or `*.` is the same), an optional port; `*` is every host. */
interface Bypass {
	readonly domain: string;
	readonly port?: number;
}

function bypassesOf(value: string): Bypass[] {
	return value
		.split(/[,\s]+/)
		.filter((entry) => entry !== "")
		.map((entry) => {
			const match = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase())!;
			const domain = match[1].replace(/^\*?\./, "").replace(/^\[(.*)\]$/, "$1");
			return match[2] === undefined ? { domain } : { domain, port: Number(match[2]) };
		});
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

function bypassed(url: URL, bypasses: readonly Bypass[]): boolean {
	const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
	const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
	return bypasses.some((entry) => (entry.domain === "*" || host === entry.domain || host.endsWith(`.${entry.domain}`)) && (entry.port === undefined || entry.port === port));
}

/** The proxies of an environment: which one each URL goes through, and a fetch that sends it there. */
export interface Proxies {
	/** The proxy a request to `url` goes through; undefined: straight to the server. */
	routeOf(url: URL): ProxyRoute | undefined;
	/** Node's fetch for a URL sent directly, undici's through its proxy. */
	readonly fetch: typeof fetch;
}

type UndiciModule = typeof import("undici");

/**
 * The proxies `env` names (process.env, or the library's `env` option, which is then the only place looked at);
 * undefined when it names none, so that requests go out as they always did.
 */
export function proxiesOf(env: NodeJS.ProcessEnv): Proxies | undefined {
	const http = firstSet(env, ["http_proxy", "HTTP_PROXY"]);
	const https = firstSet(env, ["https_proxy", "HTTPS_PROXY"]);
	if (http === undefined && https === undefined) return undefined;
	const routes: Readonly<Record<string, ProxyRoute | undefined>> = {
		"http:": http === undefined ? undefined : proxyRoute(http.variable, http.value),
		"https:": https === undefined ? undefined : proxyRoute(https.variable, https.value),
	};
	const bypasses = bypassesOf(firstSet(env, ["no_proxy", "NO_PROXY"])?.value ?? "");
	const routeOf = (url: URL) => {
		const route = routes[url.protocol];
		return route === undefined || bypassed(url, bypasses) ? undefined : route;
	};
	let undici: Promise<{ module: UndiciModule; agents: Map<string, InstanceType<UndiciModule["ProxyAgent"]>> }> | undefined;
	const loadUndici = () => {
		// Node's own fetch sets the process's global dispatcher when it is first used (here, Headers loads it):
		// undici's module then finds one and leaves it, instead of installing its own Agent for every fetch.
		void globalThis.Headers;
		undici ??= import("undici").then((module) => ({ module, agents: new Map() }));
		return undici;
	};
	const proxiedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
		const url = new URL(input instanceof Request ? input.url : input);
		const route = routeOf(url);
		if (route === undefined) return fetch(input, init);
		const { module, agents } = await loadUndici();
		let agent = agents.get(route.uri);
		// An http:// URL is asked of the proxy as its absolute URL, as curl and requests do (a proxy may refuse to
		// tunnel to ports other than 443); an https:// one goes through a CONNECT tunnel.
		if (agent === undefined) agents.set(route.uri, (agent = new module.ProxyAgent({ uri: route.uri, proxyTunnel: false })));
		try {
			return (await module.fetch(url, { ...(init as Parameters<UndiciModule["fetch"]>[1]), dispatcher: agent })) as unknown as Response;
		} catch (error) {
			if (error instanceof Error && error.name === "AbortError") throw error;
			throw new ProxiedRequestFailure(route, error);
		}
	};
	return { routeOf, fetch: proxiedFetch as typeof fetch };
}
