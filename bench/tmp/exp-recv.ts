import http from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, request } from "undici";
import { signedHeaders } from "../floor-executions.js";
import { verifyWebhook } from "../../services/receiver/verify.js";
const secret = "whsec_abc";
let n = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(204).end();
    const raw = Buffer.concat(chunks);
    if (verifyWebhook(secret, req.headers["x-service-signature"], raw).ok) {
      JSON.parse(raw.toString());
      n++;
    }
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/floor/0`;
const agent = new Agent({ connections: 32, keepAliveTimeout: 30_000 });
const body = JSON.stringify({
  id: "evt_01",
  kind: "order.created",
  time: new Date().toISOString(),
  transactionId: "txn_1",
  orderId: "ord_1",
  shortId: "BW-1",
  customerId: "cus_1",
  dueDate: null,
  currency: "EUR",
  status: "pending",
  orderItems: [{ productId: "prd_bench", quantity: 2, price: "19.99" }],
  total: "39.98",
});
const hook = { id: "hook_floor_0", url, secret };
let done = 0;
const end = performance.now() + 5000;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (performance.now() < end) {
      const r = await request(url, { method: "POST", headers: signedHeaders(hook, body), body, dispatcher: agent });
      await r.body.dump();
      done++;
    }
  }),
);
console.log("rate", (done / 5).toFixed(0), "verified", n);
process.exit(0);
