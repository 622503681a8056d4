/**
 * Where an object store's variables (credentials, regions, endpoints) were looked up, as its messages name it: the
 * `env` option a caller passed (a service's per-call credentials) or the process's environment. An operator told
 * "the environment" checks the process's variables, which for credentials passed in the option hold nothing.
 */
export type EnvOrigin = "the env option" | "the environment";

/** The origin of the variables `env` (the option's value, undefined when not given). */
export function envOriginOf(env: NodeJS.ProcessEnv | undefined): EnvOrigin {
	return env === undefined ? "the environment" : "the env option";
}
