// The top of every page: where it leads back to, its title (with a status when it has one), a
// line saying what it is, and its primary action.
import type { ReactNode } from "react";
import { Link } from "react-router";
import { ArrowLeft } from "./icons.js";

export function PageHeader({
  title,
  titleId,
  description,
  status,
  actions,
  back,
}: {
  title: ReactNode;
  titleId: string;
  description?: ReactNode;
  status?: ReactNode;
  actions?: ReactNode;
  back?: { to: string; label: string };
}) {
  return (
    <header className="page-header">
      <div className="titles">
        {back && (
          <Link className="back" to={back.to}>
            <ArrowLeft size={16} aria-hidden="true" />
            {back.label}
          </Link>
        )}
        <h1 id={titleId}>
          {title}
          {status}
        </h1>
        {description && <p className="muted">{description}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </header>
  );
}
