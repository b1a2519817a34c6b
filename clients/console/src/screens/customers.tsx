// Customers: searchable by name or email, each leading to their orders.
import type { Customer } from "@waybill/sdk";
import { useState } from "react";
import { Link } from "react-router";
import { DataList } from "../components/data-list.js";
import { when } from "../components/format.js";
import { Contact } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { Empty, QueryView } from "../components/states.js";
import { useCustomers } from "../data/queries.js";

export default function Customers() {
  const customers = useCustomers();
  const [q, setQ] = useState("");
  return (
    <section aria-labelledby="customers-title">
      <PageHeader titleId="customers-title" title="Customers" description="The people and companies orders are for." />
      <search className="toolbar" aria-label="Find customers">
        <label className="search-field">
          Search by name or email
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        </label>
      </search>
      <QueryView query={{ ...customers, data: customers.data ? [...customers.data.values()] : undefined }} what="customers">
        {(all) => {
          const list = all.filter((c) => !q || `${c.name} ${c.email ?? ""}`.toLowerCase().includes(q.toLowerCase()));
          return list.length === 0 ? (
            <Empty
              icon={Contact}
              title={q ? "No customer matches." : "No customers yet."}
              cli='waybill customers create --name "Ada Lovelace Ltd" --email orders@example.com'
            />
          ) : (
            <DataList<Customer>
              label="Customers"
              rows={list}
              rowKey={(c) => c.id}
              columns={[
                { header: "Name", card: "title", cell: (c) => <Link to={`/customers/${c.id}`}>{c.name}</Link> },
                { header: "Email", cell: (c) => c.email ?? "—" },
                { header: "Phone", cell: (c) => c.phone ?? "—" },
                { header: "Since", cell: (c) => when(c.createdAt) },
              ]}
            />
          );
        }}
      </QueryView>
    </section>
  );
}
