import { Table } from '@mantine/core';
import { flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import type { ColumnDef } from '@tanstack/react-table';

/** A @tanstack/react-table model drawn with Mantine's Table. Paging and filtering are the server's. */
export function DataTable<T>({
  data,
  columns,
  caption,
  rowKey,
  rowProps,
}: {
  data: T[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tanstack's column value types vary per column
  columns: ColumnDef<T, any>[];
  caption: string;
  rowKey: (row: T) => string;
  rowProps?: (row: T) => Record<string, string>;
}) {
  const table = useReactTable({ data, columns, getCoreRowModel: getCoreRowModel(), getRowId: rowKey });
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table highlightOnHover verticalSpacing="xs" aria-label={caption}>
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => (
                <Table.Th key={header.id}>{header.isPlaceholder ? null : flexRender(header.column.columnDef.header, header.getContext())}</Table.Th>
              ))}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {table.getRowModel().rows.map((row) => (
            <Table.Tr key={row.id} {...(rowProps?.(row.original) ?? {})}>
              {row.getVisibleCells().map((cell) => (
                <Table.Td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
