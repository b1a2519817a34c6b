-- An order's unchanging fields (id, shortId, currency, orderItems, total, createdAt) as the API
-- lists them: JSON object members without the braces, written with the order (order-listing.ts).
-- A list page joins them to the fields that can change instead of rendering every field of every
-- order on each read. NULL for orders written before this column: pages render those from their
-- columns, as before.
ALTER TABLE orders ADD COLUMN listing_head text;
