/**
 * The arguments of the library's calls as a JavaScript caller may give them (no types to check them): a store or
 * path that is not a string, options that are not an object, a destination that is not a Writable, an option name
 * the call does not take. Each is refused as USAGE naming the argument, before anything is read: they were Node's
 * TypeErrors (`The "paths[0]" argument must be of type string`, `destination.on is not a function`), or a misspelt
 * option of openTable or inspectStore ignored (trial 33).
 */
import type { Writable } from "node:stream";
import { didYouMean } from "./did-you-mean.js";
import { UsageError } from "./errors.js";

/** A value as a refusal names it: null, an object by its class, a primitive with its value. */
export function describeArgument(value: unknown): string {
	if (value === null || value === undefined) return String(value);
	if (typeof value === "object") {
		const kind = value.constructor?.name || "object";
		return `${/^[AEIOUaeiou]/.test(kind) ? "an" : "a"} ${kind}`;
	}
	// JSON.stringify throws on a bigint ("Do not know how to serialize a BigInt") and gives undefined for a symbol.
	if (typeof value === "bigint") return `the bigint ${value}n`;
	return `the ${typeof value} ${JSON.stringify(value) ?? String(value)}`;
}

/**
 * Objects that hold no options however they are filled: a Promise (the options of an async function not awaited), a
 * Map or Set (entries are no properties), a Date, a RegExp, binary data. Their options would be ignored, the defaults
 * used: refused, as a misspelt option is.
 */
function holdsNoOptions(value: object): boolean {
	return (
		typeof (value as { then?: unknown }).then === "function" ||
		value instanceof Map ||
		value instanceof Set ||
		value instanceof WeakMap ||
		value instanceof WeakSet ||
		value instanceof Date ||
		value instanceof RegExp ||
		value instanceof ArrayBuffer ||
		ArrayBuffer.isView(value)
	);
}

/** A store location: a path or a URL, as a string (a URL object stands for its href). */
export function storeArgument(store: unknown): string {
	if (typeof store === "string") return store;
	if (store instanceof URL) return store.href;
	throw new UsageError(`the store must be a path or URL string, got ${describeArgument(store)}`, { option: "store" });
}

/** An output path (a file, a dataset folder): a string; a URL object is refused as its href would be (output is local). */
export function outputArgument(path: unknown, what: "path" | "folder"): string {
	if (typeof path === "string") return path;
	if (path instanceof URL) return path.href;
	throw new UsageError(`the output ${what} must be a string, got ${describeArgument(path)}`, { option: what });
}

/**
 * An option an object inherits (a class's getter, a value on its prototype): the calls read their options' own
 * properties, so it would be ignored, the default used. Methods are no options and may be inherited.
 */
function inheritedOption(options: object): string | undefined {
	for (let proto = Object.getPrototypeOf(options) as object | null; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
		for (const name of Object.getOwnPropertyNames(proto)) {
			const property = Object.getOwnPropertyDescriptor(proto, name);
			if (name !== "constructor" && property !== undefined && (property.get !== undefined || typeof property.value !== "function")) return name;
		}
	}
	return undefined;
}

/** A call's options: an object, or none (null or undefined: the defaults). */
export function optionsArgument<T extends object>(options: T | null | undefined): T {
	if (options === undefined || options === null) return {} as T;
	if (typeof options !== "object" || Array.isArray(options) || holdsNoOptions(options)) {
		const promise = typeof (options as { then?: unknown }).then === "function" ? " (await it first)" : "";
		throw new UsageError(`options must be an object, got ${describeArgument(options)}${promise}`, { option: "options" });
	}
	const inherited = inheritedOption(options);
	if (inherited !== undefined) {
		throw new UsageError(`options: ${JSON.stringify(inherited)} is inherited (${describeArgument(options)}'s prototype), and only an object's own properties are read: copy them ({ ...options, ${inherited}: options.${inherited} })`, { option: inherited });
	}
	return options;
}

/** The destination of exportTable and exportSelection: a Node Writable (a web WritableStream: Writable.fromWeb). */
export function checkDestinationArgument(destination: unknown): asserts destination is Writable {
	const stream = destination as Partial<Writable> | null | undefined;
	if (typeof stream?.write === "function" && typeof stream.end === "function" && typeof stream.on === "function") return;
	const web = typeof WritableStream !== "undefined" && destination instanceof WritableStream ? " (a web WritableStream: pass Writable.fromWeb(stream))" : "";
	throw new UsageError(`the destination must be a Node.js Writable stream, got ${describeArgument(destination)}${web}`, { option: "destination" });
}

/** Refuses an option name outside `names` (a misspelt one would be ignored), naming the closest. */
export function checkOptionNamesOf(call: string, options: object, names: readonly string[]): void {
	for (const name of Object.keys(options)) {
		if (!names.includes(name)) throw new UsageError(`${call}: unknown option ${JSON.stringify(name)}${didYouMean(name, names)}`, { option: name });
	}
}

/**
 * An argument that is an object one of the library's calls gave (a table, a report, markers) or a caller made (a
 * store's attributes): refused as USAGE naming it when it is not an object, or not shaped as `holds` says, where a
 * TypeError (Cannot read properties of null) came from inside the call.
 */
export function checkObjectArgument(call: string, name: string, value: unknown, what: string, holds: (value: Record<string, unknown>) => boolean = () => true): void {
	if (typeof value === "object" && value !== null && !Array.isArray(value) && holds(value as Record<string, unknown>)) return;
	throw new UsageError(`${call}: ${name} must be ${what}, got ${describeArgument(value)}`, { option: name });
}

/** A table as openTable or tableOfTimeArray gives it, to createTableExportStages. */
export function checkTableArgument(call: string, table: unknown): void {
	checkObjectArgument(call, "table", table, "a table as openTable or tableOfTimeArray gives it", (value) => ["columns", "index", "shape", "dimensions"].every((field) => Array.isArray(value[field])));
}

/** `overwrite`, of the calls that write a path: true or false (a truthy string would have replaced a file). */
export function checkOverwrite(overwrite: unknown): void {
	if (overwrite !== undefined && typeof overwrite !== "boolean") throw new UsageError(`invalid overwrite ${describeArgument(overwrite).replace(/^the \w+ /, "")}: true or false`, { option: "overwrite", value: overwrite });
}
