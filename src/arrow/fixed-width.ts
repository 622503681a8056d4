import { DataType } from "apache-arrow";

/**
 * Whether an Arrow type's values are a fixed number of elements of one typed array each (`data.values`, row r at
 * r × stride): integers, floats, timestamps, durations, dates, times, decimals, fixed-size binary. Those a batch's
 * rows are copied of (CopiedRows) and said dead by row (releaseRowsOutside).
 */
export function isFixedWidth(type: DataType): boolean {
	return DataType.isInt(type) || DataType.isFloat(type) || DataType.isTimestamp(type) || DataType.isDuration(type) || DataType.isDate(type) || DataType.isTime(type) || DataType.isDecimal(type) || DataType.isFixedSizeBinary(type);
}

/** Elements of a fixed-width column's typed array per value (apache-arrow's own rule, for the types isFixedWidth takes). */
export function strideOf(type: DataType): number {
	if (DataType.isDecimal(type)) return type.bitWidth / 32;
	if (DataType.isFixedSizeBinary(type)) return type.byteWidth;
	return 1;
}
