import { DataType } from "apache-arrow";

/**
 * Whether an Arrow type's values are a fixed number of elements of one typed array each (`data.values`, row r at
 * r × stride): integers, floats, timestamps, durations, dates, times, decimals, fixed-size binary. Those a batch's
 * rows are copied of (CopiedRows) and said dead by row (releaseRowsOutside).
 */
export function isFixedWidth(type: DataType): boolean {
	return DataType.isInt(type) || DataType.isFloat(type) || DataType.isTimestamp(type) || DataType.isDuration(type) || DataType.isDate(type) || DataType.isTime(type) || DataType.isDecimal(type) || DataType.isFixedSizeBinary(type);
}
