// The baseline for the orders benchmark: bare Koa that parses the JSON body and inserts one row
// into PostgreSQL. Prints its port on stdout, then serves until killed.
import Koa from "koa";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query("CREATE TABLE IF NOT EXISTS bare_orders (id bigserial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");

const app = new Koa();
app.use(async (ctx) => {
  let raw = "";
  for await (const chunk of ctx.req) raw += chunk;
  const body = JSON.parse(raw);
  const { rows } = await pool.query("INSERT INTO bare_orders (body) VALUES ($1) RETURNING id, created_at", [body]);
  ctx.status = 201;
  ctx.body = { id: rows[0].id, createdAt: rows[0].created_at, ...body };
});
const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))));
