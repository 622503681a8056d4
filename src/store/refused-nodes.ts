/**
 * The nodes whose metadata was refused (not JSON, an extension that must be understood, a document that cannot be
 * read) while a group's tree was searched for its one time array (an export without `array`): what such a node holds
 * is not searched, so a time array may be hidden there. An export that found one time array elsewhere goes on, and
 * says so, naming each node and why (never a node dropped without a word); one that found none, or several, names them
 * in its refusal. Kept per opened store, for the table and its warning, as stale-consolidated.ts keeps its differences.
 */
import type { OpenedStore } from "./open-store.js";

export interface RefusedNode {
	/** The node's path in the store. */
	readonly path: string;
	/** Why its metadata is refused (the message of the error reading it). */
	readonly reason: string;
}

const found = new WeakMap<OpenedStore, readonly RefusedNode[]>();

export function recordRefusedNodes(opened: OpenedStore, nodes: readonly RefusedNode[]): void {
	if (nodes.length > 0) found.set(opened, nodes);
}

/** The nodes the search for the store's time array could not read, in path order; none when it did not search. */
export function refusedNodesOf(opened: OpenedStore): readonly RefusedNode[] {
	return found.get(opened) ?? [];
}

/** `sub (reason); other (reason)`: each node with why it was refused. */
export function describeRefusedNodes(nodes: readonly RefusedNode[]): string {
	return nodes.map((node) => `${node.path} (${node.reason})`).join("; ");
}

/** The warning of an export whose time array was found beside nodes it could not read; undefined when there are none. */
export function refusedNodesWarning(nodes: readonly RefusedNode[], arrayPath: string, advice = "name it (`array`: nothing is searched then)"): string | undefined {
	if (nodes.length === 0) return undefined;
	const which = nodes.length === 1 ? "a node whose metadata is refused" : `${nodes.length} nodes whose metadata is refused`;
	return `the time array ${arrayPath} was found beside ${which}, not searched (a time array there would make the choice ambiguous): ${describeRefusedNodes(nodes)}; ${advice}`;
}
