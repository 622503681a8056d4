/**
 * Which rows of a table a band covers: a flat C-order range (a run of whole rows along the first axis), or a box
 * (a range of rows along the first axis, or one chunk clipped at the table's edge).
 */
export type RowRegion = { readonly kind: "flat"; readonly offset: number } | { readonly kind: "box"; readonly origin: readonly number[]; readonly extent: readonly number[] };
