/** A table's column headings; a name ending in "#" is a number column (right-aligned), shown without the mark. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) =>
          column.endsWith("#") ? (
            <th key={column} scope="col" className="num">
              {column.slice(0, -1)}
            </th>
          ) : (
            <th key={column} scope="col">
              {column}
            </th>
          ),
        )}
      </tr>
    </thead>
  );
}
