// Order list pages as the HTTP API answers them, written as JSON text by PostgreSQL: the orders
// process and the edge pass the text on instead of decoding, re-encoding and re-serialising each
// order (a page of 100 cost about 5 ms of their CPU that way; bench:scale).
//
// What never changes about an order (id, shortId, currency, lines, total, createdAt) is rendered
// once, when it is stored (its listing head); on every write of the row, a trigger joins the head
// to the fields that can change (customer, due date, status, updatedAt) into the order's whole
// text (listing_json, migration 008), and a page joins those texts. Rendering every field of every
// order on each read was half of PostgreSQL's time for a page of 100 orders (pgbench on 1 000 000
// orders: 1.8 ms of PostgreSQL's CPU per page, 0.8 ms with the heads).
import { isoTimestampSql } from "@waybill/platform/db.js";
import { currencyScaleSql, currencyScalesJson, storedAmountSql } from "@waybill/platform/money.js";
import { MAX_PAGE_LIMIT } from "@waybill/platform/pagination.js";
import { preparedStatement } from "@waybill/platform/prepared.js";

/** SQL expressions of an order's unchanging fields, as text (`orderItems`: its lines' JSON). */
export interface ListingHeadColumns {
  id: string;
  shortId: string;
  currency: string;
  orderItems: string;
  total: string;
  createdAt: string;
}

const jsonText = (expression: string) => `to_json(${expression})::text`;

/**
 * SQL for an order's listing head: its unchanging fields as the members of a JSON object, without
 * the braces. Written by order creation (order-insert.ts) and by the benchmarks' seed.
 */
export function listingHeadSql(c: ListingHeadColumns): string {
  return `'"id":' || ${jsonText(c.id)} || ',"shortId":' || ${jsonText(c.shortId)} || ',"currency":' || ${jsonText(c.currency)}
    || ',"orderItems":' || ${c.orderItems} || ',"total":' || ${jsonText(c.total)} || ',"createdAt":' || ${jsonText(isoTimestampSql(c.createdAt))}`;
}

// Orders stored before listing heads (NULL listing_json): rendered from their columns, their lines
// from order_items when they also predate items_json. The scale of their currency is looked up
// only for them.
const scale = `(SELECT ${currencyScaleSql("s.scales", "o.currency")} FROM scales s)`;
const headFromColumns = listingHeadSql({
  id: "o.id",
  shortId: "o.short_id",
  currency: "o.currency",
  orderItems: `COALESCE(o.items_json,
      (SELECT json_agg(json_build_object('productId', i.product_id, 'quantity', i.quantity, 'price', ${storedAmountSql("i.price", scale)})
                       ORDER BY i.line_no)
         FROM order_items i WHERE i.order_id = o.id), '[]'::json)::text`,
  total: storedAmountSql("o.total", scale),
  createdAt: "o.created_at",
});

// The same text as migration 008's trigger writes to listing_json (orders-insert.test.ts holds the
// two together). The status (one of five words, by the column's CHECK) and the ISO timestamps hold
// nothing JSON escapes, so they are quoted as they are (to_json on each cost a tenth of a page).
const orderJsonFromColumns = `'{' || COALESCE(o.listing_head, ${headFromColumns})
    || ',"customerId":' || ${jsonText("o.customer_id")} || ',"dueDate":' || COALESCE('"' || ${isoTimestampSql("o.due_date")} || '"', 'null')
    || ',"status":"' || o.status || '","updatedAt":"' || ${isoTimestampSql("o.updated_at")} || '"}'`;

/** A page of orders as JSON, given its WHERE conditions ($2 the page size, $3 the currencies' scales). */
const listOrdersJsonSql = (conditions: string) =>
  // The page's ids first, from the index of its filter alone (status or customer, then id); its
  // rows then by primary key, one by one (LATERAL … OFFSET 0 keeps that a nested loop). Asked for
  // the rows at once, PostgreSQL walked the primary key newest first and filtered: it takes the
  // matches to be spread evenly, and behind 20 000 newer pending orders a page of 20 completed
  // ones read all of them (4.4 ms instead of 0.2).
  //
  // The constant bound under the page size keeps the plan PostgreSQL makes for any values as cheap
  // in its estimate as the page: it then keeps that plan instead of planning every execution
  // (0.3 ms of its CPU per page). With `LIMIT $2` alone, it estimates a tenth of the tenant's
  // orders, never keeps the plan, and would compile it (JIT) for 25 ms if it did.
  //
  // Each order's text is the one stored with it (listing_json): a page of 100 then cost PostgreSQL
  // 0.39 ms of CPU instead of 0.55 rendering the fields that can change on every read.
  `WITH ids AS (
     SELECT id, row_number() OVER (ORDER BY id DESC) AS n
       FROM (SELECT id FROM (SELECT id FROM orders WHERE ${conditions} ORDER BY id DESC LIMIT ${MAX_PAGE_LIMIT + 1}) bounded
              ORDER BY id DESC LIMIT $2 + 1) page),
   chosen AS (
     SELECT ids.n, o.* FROM ids CROSS JOIN LATERAL (
       SELECT id, short_id, customer_id, due_date, currency, status, total, created_at, updated_at, items_json, listing_head, listing_json
         FROM orders WHERE orders.id = ids.id OFFSET 0) o),
   -- The currencies' scales are parsed once per statement, not once per amount.
   scales AS MATERIALIZED (SELECT $3::jsonb AS scales)
   SELECT '[' || COALESCE(string_agg(COALESCE(o.listing_json, ${orderJsonFromColumns}), ',' ORDER BY o.id DESC) FILTER (WHERE o.n <= $2), '') || ']' AS data,
          min(o.id) FILTER (WHERE o.n <= $2) AS last_id,
          count(*) > $2 AS more
     FROM chosen o`;

/** What a page lists: orders of one status and/or customer, or all; older than `after` when set. */
export interface ListingFilter {
  status?: string;
  customerId?: string;
  limit: number;
}

/**
 * One prepared statement per combination of filters, by its conditions: with catch-all conditions
 * in one statement (`$2 IS NULL OR status = $2`), a plan PostgreSQL keeps for all values can use
 * neither the status nor the customer index, nor the cursor as the index's bound.
 */
const listOrdersStatements = new Map<string, ReturnType<typeof preparedStatement>>();

export function listOrdersJsonQuery(tenantId: string, filter: ListingFilter, after: string | null) {
  const values: unknown[] = [tenantId, filter.limit, currencyScalesJson()];
  const conditions = ["tenant_id = $1"];
  const where = (sql: (n: number) => string, value: unknown) => conditions.push(sql(values.push(value)));
  if (filter.status != null) where((n) => `status = $${n}`, filter.status);
  if (filter.customerId != null) where((n) => `customer_id = $${n}`, filter.customerId);
  if (after != null) where((n) => `id < $${n}`, after);
  const key = conditions.join(" AND ");
  let statement = listOrdersStatements.get(key);
  if (!statement) {
    statement = preparedStatement(`orders_list_orders_json_${listOrdersStatements.size + 1}`, listOrdersJsonSql(key));
    listOrdersStatements.set(key, statement);
  }
  return statement(values);
}
