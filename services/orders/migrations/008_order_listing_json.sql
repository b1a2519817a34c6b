-- An order as the API lists it, whole: its listing head and the fields that can change, rendered
-- by PostgreSQL whenever the row is written, so that a list page only joins stored texts. The
-- trigger renders exactly what order-listing.ts renders for a row without it (tested in
-- orders-insert.test.ts). NULL for orders written before listing heads, and for any row the
-- trigger cannot render: pages render those from their columns, as before. No row is rewritten.
ALTER TABLE orders ADD COLUMN listing_json text;

-- Built-in functions only, so that the body means the same under any search_path.
CREATE FUNCTION render_order_listing() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.listing_json := '{' || NEW.listing_head
    || ',"customerId":' || to_json(NEW.customer_id)::text
    || ',"dueDate":' || COALESCE('"' || to_char(NEW.due_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"status":"' || NEW.status
    || '","updatedAt":"' || to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}';
  RETURN NEW;
END
$$;

CREATE TRIGGER orders_listing_json BEFORE INSERT OR UPDATE ON orders
  FOR EACH ROW EXECUTE FUNCTION render_order_listing();
