// Bounds of inventory inputs, shared by the service and the edge's request schemas. Quantities
// stay well inside PostgreSQL's integer (and protobuf's int32) so sums never overflow.
export const MAX_STOCK_QUANTITY = 1_000_000_000;
export const MAX_SKU_LENGTH = 100;
export const MAX_PRODUCT_NAME_LENGTH = 200;
export const MAX_LOCATION_LENGTH = 64;
export const MAX_REASON_LENGTH = 500;
export const DEFAULT_LOCATION = "default";

/**
 * No leading or trailing white space and no control characters (they make identifiers
 * ambiguous, and PostgreSQL refuses NUL). Written without \p{…} so that the OpenAPI pattern
 * works in validators of other languages.
 */
export const TRIMMED_TEXT = /^[^\s\x00-\x1f\x7f-\x9f](?:[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f])?$/;

/** Free text (a reason) may span lines but carries no other control characters. */
export const REASON_TEXT = /^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$/;
