import { Select } from '@mantine/core';
import type { StoreSummaryView } from '../../../src-server/admin/contract';

/** Chooses the Store a per-Store screen (keys, explorer, ingestion) shows. */
export function StorePicker({
  stores,
  value,
  onChange,
  allLabel,
}: {
  stores: StoreSummaryView[];
  value: string | undefined;
  onChange: (slug: string | undefined) => void;
  /** When given, an extra first choice meaning "every Store". */
  allLabel?: string;
}) {
  const ALL = '__all__';
  const data = [
    ...(allLabel ? [{ value: ALL, label: allLabel }] : []),
    ...stores.map((store) => ({ value: store.slug, label: `${store.name} (${store.slug}, ${store.environment})` })),
  ];
  return (
    <Select
      label="Store"
      data={data}
      value={value ?? (allLabel ? ALL : null)}
      onChange={(next) => onChange(next === null || next === ALL ? undefined : next)}
      allowDeselect={false}
      w={360}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
