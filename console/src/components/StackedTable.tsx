import type { ReactNode } from "react";
import { TableHead } from "./TableHead.js";

/**
 * A table of records: column headings (TableHead), a caption for screen readers, and on a phone each row a
 * block of labelled lines (table.stacked in styles.css: give every cell its `data-label`); should a row
 * still not fit, it scrolls sideways inside its own box, never widening the page.
 */
export function StackedTable({
  caption,
  columns,
  className,
  children,
}: {
  caption: ReactNode;
  columns: string[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table className={className ? `stacked ${className}` : "stacked"}>
        <caption className="visually-hidden">{caption}</caption>
        <TableHead columns={columns} />
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
